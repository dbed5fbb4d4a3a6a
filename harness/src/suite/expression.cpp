// A small recursive-descent parser for the integer expressions of suite files.
// Suite files are data written by people: the grammar is deliberately tiny and
// every failure names the expression.
#include "kernelgate/detail/expression.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

#include "kernelgate/error.hpp"

namespace kg {

struct Expression::Node {
  enum class Kind { number, name, unary, binary, call };
  Kind kind = Kind::number;
  std::int64_t value = 0;
  std::string text;  // name, operator or function
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using NodePtr = std::shared_ptr<const Expression::Node>;
using Kind = Expression::Node::Kind;

struct FunctionInfo {
  const char* name;
  int min_args;
  int max_args;
};
constexpr FunctionInfo kFunctions[] = {
    {"min", 2, 16},
    {"max", 2, 16},
    {"convt_taps", 5, 5},
};

const FunctionInfo* find_function(const std::string& name) {
  for (const auto& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse_all() {
    NodePtr root = parse_or();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("expression '" + text_ + "' at position " + std::to_string(pos_ + 1) + ": " + what);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Consumes `op` when it is next (and is not the prefix of a longer operator).
  bool accept(const std::string& op) {
    skip_space();
    if (text_.compare(pos_, op.size(), op) != 0) return false;
    if (op.size() == 1 && (op == "<" || op == ">" || op == "!" || op == "=") &&
        pos_ + 1 < text_.size() && text_[pos_ + 1] == '=')
      return false;
    pos_ += op.size();
    return true;
  }

  static NodePtr make_binary(const std::string& op, NodePtr a, NodePtr b) {
    auto node = std::make_shared<Expression::Node>();
    node->kind = Kind::binary;
    node->text = op;
    node->children = {std::move(a), std::move(b)};
    return node;
  }

  NodePtr parse_or() {
    NodePtr left = parse_and();
    while (accept("||")) left = make_binary("||", left, parse_and());
    return left;
  }
  NodePtr parse_and() {
    NodePtr left = parse_comparison();
    while (accept("&&")) left = make_binary("&&", left, parse_comparison());
    return left;
  }
  NodePtr parse_comparison() {
    NodePtr left = parse_sum();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (accept(op)) return make_binary(op, left, parse_sum());
    return left;
  }
  NodePtr parse_sum() {
    NodePtr left = parse_product();
    for (;;) {
      if (accept("+")) left = make_binary("+", left, parse_product());
      else if (accept("-")) left = make_binary("-", left, parse_product());
      else return left;
    }
  }
  NodePtr parse_product() {
    NodePtr left = parse_unary();
    for (;;) {
      if (accept("*")) left = make_binary("*", left, parse_unary());
      else if (accept("/")) left = make_binary("/", left, parse_unary());
      else if (accept("%")) left = make_binary("%", left, parse_unary());
      else return left;
    }
  }
  NodePtr parse_unary() {
    for (const char* op : {"-", "+", "!"}) {
      if (accept(op)) {
        auto node = std::make_shared<Expression::Node>();
        node->kind = Kind::unary;
        node->text = op;
        node->children = {parse_unary()};
        return node;
      }
    }
    return parse_primary();
  }
  NodePtr parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number, an axis name or '(' but the expression ends");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr inner = parse_or();
      if (!accept(")")) fail("expected ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t start = pos_;
      std::int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
          pos_ = start;
          fail("integer too large");
        }
        ++pos_;
      }
      auto node = std::make_shared<Expression::Node>();
      node->kind = Kind::number;
      node->value = value;
      return node;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name = text_.substr(start, pos_ - start);
      auto node = std::make_shared<Expression::Node>();
      if (accept("(")) {
        const FunctionInfo* function = find_function(name);
        if (!function) {
          pos_ = start;
          fail("unknown function '" + name + "' (functions: min, max, convt_taps)");
        }
        node->kind = Kind::call;
        node->text = name;
        if (!accept(")")) {
          do node->children.push_back(parse_or());
          while (accept(","));
          if (!accept(")")) fail("expected ',' or ')'");
        }
        int n = static_cast<int>(node->children.size());
        if (n < function->min_args || n > function->max_args) {
          pos_ = start;
          fail("function '" + name + "' takes " +
               (function->min_args == function->max_args
                    ? std::to_string(function->min_args)
                    : std::to_string(function->min_args) + " or more") +
               " arguments, got " + std::to_string(n));
        }
        return node;
      }
      node->kind = Kind::name;
      node->text = name;
      return node;
    }
    fail("expected a number, an axis name or '(' but found '" + std::string(1, c) + "'");
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};

void collect_names(const NodePtr& node, std::vector<std::string>& names) {
  if (node->kind == Kind::name) {
    if (std::find(names.begin(), names.end(), node->text) == names.end()) names.push_back(node->text);
    return;
  }
  for (const auto& child : node->children) collect_names(child, names);
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }

class Evaluator {
 public:
  Evaluator(const std::string& text, const Axes& axes) : text_(text), axes_(axes) {}

  std::int64_t eval(const NodePtr& node) const {
    switch (node->kind) {
      case Kind::number:
        return node->value;
      case Kind::name: {
        auto it = axes_.find(node->text);
        if (it == axes_.end()) fail("unknown axis '" + node->text + "'");
        return it->second;
      }
      case Kind::unary: {
        std::int64_t v = eval(node->children[0]);
        if (node->text == "!") return v == 0 ? 1 : 0;
        if (node->text == "+") return v;
        std::int64_t r;
        if (__builtin_sub_overflow(std::int64_t{0}, v, &r)) fail("integer overflow");
        return r;
      }
      case Kind::binary:
        return binary(node);
      case Kind::call:
        return call(node);
    }
    fail("corrupt expression");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("expression '" + text_ + "': " + what);
  }

  std::int64_t binary(const NodePtr& node) const {
    const std::string& op = node->text;
    // Short-circuit so that rules like "b != 0 && a % b == 0" are safe.
    if (op == "&&") return eval(node->children[0]) != 0 && eval(node->children[1]) != 0;
    if (op == "||") return eval(node->children[0]) != 0 || eval(node->children[1]) != 0;
    std::int64_t a = eval(node->children[0]);
    std::int64_t b = eval(node->children[1]);
    std::int64_t r = 0;
    if (op == "+") {
      if (__builtin_add_overflow(a, b, &r)) fail("integer overflow");
      return r;
    }
    if (op == "-") {
      if (__builtin_sub_overflow(a, b, &r)) fail("integer overflow");
      return r;
    }
    if (op == "*") {
      if (__builtin_mul_overflow(a, b, &r)) fail("integer overflow");
      return r;
    }
    if (op == "/" || op == "%") {
      if (b == 0) fail("division by zero");
      if (a == INT64_MIN && b == -1) fail("integer overflow");
      return op == "/" ? floor_div(a, b) : floor_mod(a, b);
    }
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    fail("unknown operator '" + op + "'");
  }

  std::int64_t call(const NodePtr& node) const {
    std::vector<std::int64_t> args;
    for (const auto& child : node->children) args.push_back(eval(child));
    if (node->text == "min") return *std::min_element(args.begin(), args.end());
    if (node->text == "max") return *std::max_element(args.begin(), args.end());
    if (node->text == "convt_taps") {
      if (args[0] < 0 || args[1] < 1 || args[2] < 1 || args[3] < 0 || args[4] < 0)
        fail("convt_taps(extent, kernel, stride, padding, outputs_used) needs extent >= 0, "
             "kernel >= 1, stride >= 1, padding >= 0, outputs_used >= 0");
      return conv_transpose_taps(args[0], args[1], args[2], args[3], args[4]);
    }
    fail("unknown function '" + node->text + "'");
  }

  const std::string& text_;
  const Axes& axes_;
};

}  // namespace

Expression Expression::parse(const std::string& text) {
  Expression expression;
  expression.text_ = text;
  Parser parser(text);
  expression.root_ = parser.parse_all();
  collect_names(expression.root_, expression.names_);
  return expression;
}

std::int64_t Expression::evaluate(const Axes& axes) const {
  if (!root_) throw Error("expression is empty");
  return Evaluator(text_, axes).eval(root_);
}

std::int64_t evaluate_expression(const std::string& text, const Axes& axes) {
  return Expression::parse(text).evaluate(axes);
}

std::int64_t conv_transpose_taps(std::int64_t extent, std::int64_t kernel, std::int64_t stride,
                                 std::int64_t padding, std::int64_t outputs_used) {
  // Input i with tap t writes output o = i * stride - padding + t.
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < extent; ++i) {
    std::int64_t first = i * stride - padding;
    std::int64_t lo = std::max<std::int64_t>(first, 0);
    std::int64_t hi = std::min<std::int64_t>(first + kernel, outputs_used);
    if (hi > lo) count += hi - lo;
  }
  return count;
}

}  // namespace kg
