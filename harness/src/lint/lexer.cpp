// A small C++ lexer: enough to tell identifiers, literals and punctuation
// apart with their lines, never to parse. Anything it does not know becomes
// one punctuation character, so no input stops it.
#include "lexer.hpp"

#include <algorithm>
#include <cctype>

namespace kg::lint::detail {
namespace {

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Lexer {
 public:
  explicit Lexer(std::string_view source) : s_(source) {}

  Lexed run() {
    bool line_start = true;  // only whitespace since the last newline
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        line_start = true;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
      } else if (starts("//")) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (starts("/*")) {
        skip_block_comment();
      } else if (c == '#' && line_start) {
        directive();
      } else {
        line_start = false;
        out_.tokens.push_back(next_token());
      }
    }
    return std::move(out_);
  }

 private:
  bool starts(std::string_view text) const { return s_.substr(i_, text.size()) == text; }

  void skip_block_comment() {
    i_ += 2;
    while (i_ < s_.size() && !starts("*/")) {
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
    i_ = std::min(i_ + 2, s_.size());
  }

  // A preprocessor line (with its continuations), lexed on its own without
  // its '#'.
  void directive() {
    const int line = line_;
    ++i_;
    std::string text;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {
        text += ' ';
        i_ += 2;
        ++line_;
        continue;
      }
      if (starts("/*")) {
        skip_block_comment();
        continue;
      }
      if (starts("//")) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        break;
      }
      text += s_[i_++];
    }
    Lexed body = Lexer(text).run();
    for (Token& token : body.tokens) token.line = line;
    if (body.tokens.size() >= 2 && body.tokens[0].text == "include") {
      include(body.tokens, line);
    } else if (body.tokens.size() >= 2 && body.tokens[0].text == "define") {
      out_.macro_tokens.insert(out_.macro_tokens.end(), body.tokens.begin() + 2, body.tokens.end());
    } else if (body.tokens.size() >= 2 && conditional(body.tokens[0].text)) {
      out_.macro_tokens.insert(out_.macro_tokens.end(), body.tokens.begin() + 1, body.tokens.end());
    }
  }

  static bool conditional(const std::string& directive) {
    return directive == "if" || directive == "ifdef" || directive == "ifndef" || directive == "elif" ||
           directive == "elifdef" || directive == "elifndef";
  }

  // tokens: include, then "target" or < target >.
  void include(const std::vector<Token>& tokens, int line) {
    if (tokens[1].kind == TokenKind::string) {
      out_.includes.push_back({tokens[1].text, line});
    } else if (tokens[1].text == "<") {
      std::string target;
      for (std::size_t k = 2; k < tokens.size() && tokens[k].text != ">"; ++k) target += tokens[k].text;
      out_.includes.push_back({target, line});
    }
  }

  Token next_token() {
    const char c = s_[i_];
    if (identifier_start(c)) return identifier_or_prefixed_literal();
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))))
      return number();
    if (c == '"') return quoted(TokenKind::string, '"');
    if (c == '\'') return quoted(TokenKind::character, '\'');
    for (std::string_view op : {"::", "->", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "++", "--"}) {
      if (starts(op)) {
        i_ += op.size();
        return {TokenKind::punctuation, std::string(op), line_};
      }
    }
    ++i_;
    return {TokenKind::punctuation, std::string(1, c), line_};
  }

  Token identifier_or_prefixed_literal() {
    const std::size_t begin = i_;
    while (i_ < s_.size() && identifier_char(s_[i_])) ++i_;
    const std::string_view word = s_.substr(begin, i_ - begin);
    const bool string_next = i_ < s_.size() && s_[i_] == '"';
    if (string_next && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR"))
      return raw_string();
    if (word == "u8" || word == "u" || word == "U" || word == "L") {
      if (string_next) return quoted(TokenKind::string, '"');
      if (i_ < s_.size() && s_[i_] == '\'') return quoted(TokenKind::character, '\'');
    }
    return {TokenKind::identifier, std::string(word), line_};
  }

  Token number() {
    const std::size_t begin = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      const bool exponent_sign = (c == '+' || c == '-') && std::string_view("eEpP").find(s_[i_ - 1]) != std::string_view::npos;
      if (!identifier_char(c) && c != '.' && c != '\'' && !exponent_sign) break;
      ++i_;
    }
    return {TokenKind::number, std::string(s_.substr(begin, i_ - begin)), line_};
  }

  Token quoted(TokenKind kind, char quote) {
    const int line = line_;
    std::string text;
    ++i_;
    while (i_ < s_.size() && s_[i_] != quote && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        text += s_[i_++];
        if (s_[i_] == '\n') ++line_;
      }
      text += s_[i_++];
    }
    if (i_ < s_.size() && s_[i_] == quote) ++i_;
    return {kind, text, line};
  }

  // R"delimiter( ... )delimiter"
  Token raw_string() {
    const int line = line_;
    const std::size_t open = s_.find('(', i_);
    if (open == std::string_view::npos) return quoted(TokenKind::string, '"');
    const std::string close = ")" + std::string(s_.substr(i_ + 1, open - i_ - 1)) + "\"";
    std::size_t end = s_.find(close, open + 1);
    if (end == std::string_view::npos) end = s_.size();
    const std::string_view text = s_.substr(open + 1, end - open - 1);
    for (char c : text) line_ += c == '\n';
    i_ = std::min(end + close.size(), s_.size());
    return {TokenKind::string, std::string(text), line};
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  Lexed out_;
};

}  // namespace

Lexed lex(std::string_view source) { return Lexer(source).run(); }

}  // namespace kg::lint::detail
