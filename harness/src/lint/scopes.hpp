#pragma once
// State a candidate file keeps between calls: variables at namespace scope
// that are not const (host or __device__), static data members, and static
// or thread_local variables inside functions and lambdas. Found by following
// the braces of the file and what each one opens, a heuristic, not a parse:
// what it cannot tell (a variable initialised with parentheses at namespace
// scope) it leaves out rather than guess.
#include <string>
#include <vector>

#include "lexer.hpp"

namespace kg::lint::detail {

struct MutableState {
  int line;
  std::string what;  // "static local 'calls'", "namespace-scope variable 'cache'"
};

std::vector<MutableState> mutable_state(const std::vector<Token>& tokens);

}  // namespace kg::lint::detail
