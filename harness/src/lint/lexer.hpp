#pragma once
// The tokens of a C++/CUDA source for the tripwire: comments dropped, string
// literals kept whole (raw strings too), each token with its line.
// Preprocessor directives are not tokens of the program: an #include gives its
// target, and a #define's body is kept apart, since a call hidden in a macro is
// still a call but its braces are no scope.
#include <string>
#include <string_view>
#include <vector>

namespace kg::lint::detail {

enum class TokenKind { identifier, number, string, character, punctuation };

struct Token {
  TokenKind kind;
  std::string text;  // a string literal's text is its contents, without quotes or prefix
  int line;
};

struct Include {
  std::string target;  // "cuda_fp16.h", "../common/adversarial.cuh"
  int line;
};

struct Lexed {
  std::vector<Token> tokens;        // the program outside preprocessor lines
  // The bodies of #define lines and the conditions of #if, #ifdef, #ifndef
  // and #elif lines.
  std::vector<Token> macro_tokens;
  std::vector<Include> includes;
};

Lexed lex(std::string_view source);

}  // namespace kg::lint::detail
