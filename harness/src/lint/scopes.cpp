// Follows the braces of a file: each `{` opens a namespace, a class, a
// function (or lambda) body, or an initializer, told apart by the tokens
// before it. A statement that ends at namespace scope is judged as a
// variable; `static` and `thread_local` are judged where they appear inside
// classes and functions.
#include "scopes.hpp"

#include <algorithm>
#include <set>

namespace kg::lint::detail {
namespace {

enum class Scope { namespace_body, class_body, function_body, initializer };

bool is(const Token& t, const char* text) { return t.text == text && t.kind != TokenKind::string; }

class ScopeWalk {
 public:
  explicit ScopeWalk(const std::vector<Token>& tokens) : t_(tokens) {}

  std::vector<MutableState> run() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (is(t_[i], "{")) {
        open(i);
      } else if (is(t_[i], "}")) {
        close(i);
      } else if (is(t_[i], ";")) {
        if (scope() == Scope::namespace_body) judge_namespace_statement(statement_start_, i);
        statement_start_ = i + 1;
      } else if ((is(t_[i], "static") || is(t_[i], "thread_local")) &&
                 (scope() == Scope::function_body || scope() == Scope::class_body)) {
        judge_static(i);
      }
    }
    return std::move(found_);
  }

 private:
  struct Open {
    Scope kind;
    std::size_t statement_start;  // of the statement the brace is in
  };

  Scope scope() const { return stack_.back().kind; }

  void open(std::size_t i) {
    const Scope kind = what_opens(i);
    stack_.push_back({kind, statement_start_});
    if (kind != Scope::initializer) statement_start_ = i + 1;
  }

  void close(std::size_t i) {
    if (stack_.size() == 1) return;  // an unbalanced `}` (from #if branches) is ignored
    const Open closed = stack_.back();
    stack_.pop_back();
    // The statement around an initializer goes on (`int table[] = {...};`),
    // as does the one around a lambda inside one; after any other body a
    // statement of namespace or class scope starts.
    const bool body_ends_statement =
        closed.kind != Scope::initializer && (scope() == Scope::namespace_body || scope() == Scope::class_body);
    statement_start_ = body_ends_statement ? i + 1 : closed.statement_start;
  }

  Scope what_opens(std::size_t i) const {
    const std::string before = i > 0 ? t_[i - 1].text : "";
    static const std::set<std::string> kEndsASignature = {")", "]", "mutable", "noexcept", "override"};
    if (kEndsASignature.count(before) || (before == "const" && i >= 2 && t_[i - 2].text == ")"))
      return Scope::function_body;  // a function, a member function or a lambda
    if (scope() == Scope::function_body) return Scope::function_body;
    if (scope() == Scope::initializer) return Scope::initializer;
    if (open_brackets(statement_start_, i) > 0) return Scope::initializer;  // an argument: f({...})
    std::size_t begin = skip_template_prefix(statement_start_, i);
    for (std::size_t k = begin; k < i; ++k) {
      if (is(t_[k], "namespace")) return Scope::namespace_body;
      if (is(t_[k], "extern") && k + 1 < i && t_[k + 1].kind == TokenKind::string) return Scope::namespace_body;
    }
    for (std::size_t k = begin; k < i; ++k)
      if (is(t_[k], "struct") || is(t_[k], "class") || is(t_[k], "union")) return Scope::class_body;
    if (!has_top_level(begin, i, "=") && has_top_level(begin, i, "(")) return Scope::function_body;
    return Scope::initializer;
  }

  // Past `template <...>`, so its `class T` is not taken for a class.
  std::size_t skip_template_prefix(std::size_t begin, std::size_t end) const {
    if (begin + 1 >= end || !is(t_[begin], "template") || !is(t_[begin + 1], "<")) return begin;
    int depth = 0;
    for (std::size_t k = begin + 1; k < end; ++k) {
      if (is(t_[k], "<")) ++depth;
      if (is(t_[k], ">")) --depth;
      if (is(t_[k], ">>")) depth -= 2;
      if (depth <= 0) return k + 1;
    }
    return end;
  }

  int open_brackets(std::size_t begin, std::size_t end) const {
    int depth = 0;
    for (std::size_t k = begin; k < end; ++k) {
      if (is(t_[k], "(") || is(t_[k], "[")) ++depth;
      if (is(t_[k], ")") || is(t_[k], "]")) --depth;
    }
    return depth;
  }

  // Whether `text` occurs in [begin, end) outside brackets.
  bool has_top_level(std::size_t begin, std::size_t end, const char* text) const {
    return first_top_level(begin, end, text) < end;
  }

  std::size_t first_top_level(std::size_t begin, std::size_t end, const char* text) const {
    int depth = 0;
    for (std::size_t k = begin; k < end; ++k) {
      if (depth == 0 && is(t_[k], text)) return k;
      if (is(t_[k], "(") || is(t_[k], "[") || is(t_[k], "{")) ++depth;
      if (is(t_[k], ")") || is(t_[k], "]") || is(t_[k], "}")) --depth;
    }
    return end;
  }

  // The name a declaration declares: its last identifier before `stop`.
  std::size_t declared_name(std::size_t begin, std::size_t stop) const {
    std::size_t name = stop;
    for (std::size_t k = begin; k < stop; ++k)
      if (t_[k].kind == TokenKind::identifier) name = k;
    return name;
  }

  void judge_namespace_statement(std::size_t begin, std::size_t end) {
    if (begin >= end) return;
    static const std::set<std::string> kNotAVariable = {
        "using",  "typedef", "namespace", "template", "static_assert", "friend",   "struct", "class",
        "union",  "enum",    "extern",    "const",    "constexpr",     "consteval", "operator",
        "__constant__"};
    for (std::size_t k = begin; k < end; ++k)
      if (t_[k].kind == TokenKind::identifier && kNotAVariable.count(t_[k].text)) return;
    const std::size_t assign = first_top_level(begin, end, "=");
    const std::size_t paren = first_top_level(begin, end, "(");
    if (paren < assign) return;  // a function declaration or a macro's call
    std::size_t stop = std::min({assign, first_top_level(begin, end, "["), first_top_level(begin, end, "{")});
    int identifiers = 0;
    for (std::size_t k = begin; k < stop; ++k) identifiers += t_[k].kind == TokenKind::identifier;
    if (identifiers < 2) return;  // a type and a name at least
    const std::size_t name = declared_name(begin, stop);
    bool device = false;
    for (std::size_t k = begin; k < stop; ++k) device = device || is(t_[k], "__device__") || is(t_[k], "__managed__");
    found_.push_back({t_[name].line, std::string(device ? "__device__ variable '" : "namespace-scope variable '") +
                                         t_[name].text + "' (not const)"});
  }

  void judge_static(std::size_t at) {
    const bool member = scope() == Scope::class_body;
    std::size_t stop = at + 1;
    for (int depth = 0; stop < t_.size(); ++stop) {
      const Token& t = t_[stop];
      if (depth == 0 && (is(t, ";") || is(t, "=") || is(t, "{") || is(t, "("))) break;
      if (is(t, "const") || is(t, "constexpr")) return;
      if (is(t, "[")) ++depth;
      if (is(t, "]")) --depth;
    }
    if (stop >= t_.size()) return;
    if (member && is(t_[stop], "(")) return;  // a static member function
    const std::size_t name = declared_name(at + 1, stop);
    if (name == stop) return;
    const std::string kind = member ? "static data member '" : is(t_[at], "static") ? "static local '" : "thread_local '";
    found_.push_back({t_[name].line, kind + t_[name].text + "'"});
  }

  const std::vector<Token>& t_;
  std::vector<Open> stack_{{Scope::namespace_body, 0}};
  std::size_t statement_start_ = 0;
  std::vector<MutableState> found_;
};

}  // namespace

std::vector<MutableState> mutable_state(const std::vector<Token>& tokens) { return ScopeWalk(tokens).run(); }

}  // namespace kg::lint::detail
