// Integer expressions (core/int_expr.hpp): a recursive-descent parser into a small tree, then checked evaluation.
#include "core/int_expr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpubench {
namespace {

/// An expression as messages quote it: cut to 120 characters with "…" (a 200 kB expression is one mistake, not a
/// page of stderr).
std::string shown(const std::string& text) {
  constexpr size_t kMax = 120;
  return text.size() <= kMax ? text : text.substr(0, kMax - 1) + "…";
}

}  // namespace

/// The parser: one pass over the text, building IntExpr::nodes_ bottom-up.
class IntExprParser {
 public:
  explicit IntExprParser(IntExpr& out) : e_(out), s_(out.text_) {}

  int parse_all() {
    const int root = expr();
    skip_space();
    if (pos_ < s_.size()) fail(fmt::format("unexpected '{}'", s_[pos_]));
    return root;
  }

 private:
  using Node = IntExpr::Node;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("'{}': {} at column {}", shown(s_), what, pos_ + 1));
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  int add(Node n) {
    // Evaluation recurses once per node of a chain (B + B + …): a bound keeps it far inside the stack.
    constexpr size_t kMaxNodes = 4096;
    if (e_.nodes_.size() >= kMaxNodes) fail(fmt::format("more than {} terms and operators", kMaxNodes));
    e_.nodes_.push_back(std::move(n));
    return static_cast<int>(e_.nodes_.size()) - 1;
  }
  int binary(Node::Kind kind, int a, int b) {
    // A divisor written as the number 0 is wrong at every size: say so when the text is read, not when it is used.
    if (kind == Node::kDiv || kind == Node::kCeilDiv) {
      const Node& divisor = e_.nodes_[static_cast<size_t>(b)];
      if (divisor.kind == Node::kNumber && (divisor.value == 0 || (kind == Node::kCeilDiv && divisor.value < 0)))
        throw InputError(fmt::format("'{}': {} by the number {}", shown(s_),
                                     kind == Node::kDiv ? "division" : "ceil_div", divisor.value));
    }
    Node n;
    n.kind = kind;
    n.a = a;
    n.b = b;
    return add(std::move(n));
  }
  int expr() {
    int left = term();
    for (;;) {
      if (take('+')) left = binary(Node::kAdd, left, term());
      else if (take('-')) left = binary(Node::kSub, left, term());
      else return left;
    }
  }
  int term() {
    int left = unary();
    for (;;) {
      if (take('*')) left = binary(Node::kMul, left, unary());
      else if (take('/')) left = binary(Node::kDiv, left, unary());
      else return left;
    }
  }
  int unary() {
    if (++depth_ > 64) fail("nested too deeply (more than 64 levels)");
    int out;
    if (take('-')) out = binary(Node::kNeg, unary(), -1);
    else out = primary();
    --depth_;
    return out;
  }
  int primary() {
    skip_space();
    if (pos_ >= s_.size()) fail("expected a number, a symbol or '('");
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const size_t start = pos_;
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (__builtin_mul_overflow(v, int64_t{10}, &v) || __builtin_add_overflow(v, int64_t{s_[pos_] - '0'}, &v)) {
          pos_ = start;
          fail("number too large for int64");
        }
        ++pos_;
      }
      Node n;
      n.value = v;
      return add(std::move(n));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (!take('(')) {
        Node n;
        n.kind = Node::kSymbol;
        n.symbol = std::move(name);
        return add(std::move(n));
      }
      Node::Kind kind;
      if (name == "ceil_div") kind = Node::kCeilDiv;
      else if (name == "min") kind = Node::kMin;
      else if (name == "max") kind = Node::kMax;
      else {
        pos_ = start;
        fail(fmt::format("unknown function '{}' (known: ceil_div, min, max)", name));
      }
      const int a = expr();
      if (!take(',')) fail(fmt::format("{} takes two arguments: expected ','", name));
      const int b = expr();
      if (!take(')')) fail("expected ')'");
      return binary(kind, a, b);
    }
    if (take('(')) {
      const int inner = expr();
      if (!take(')')) fail("expected ')'");
      return inner;
    }
    fail("expected a number, a symbol or '('");
  }

  IntExpr& e_;
  const std::string& s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

IntExpr IntExpr::parse(std::string_view text) {
  IntExpr e;
  e.text_ = std::string(text);
  IntExprParser parser(e);
  e.root_ = parser.parse_all();
  return e;
}

std::vector<std::string> IntExpr::symbols() const {
  std::vector<std::string> out;
  for (const Node& n : nodes_)
    if (n.kind == Node::kSymbol && std::find(out.begin(), out.end(), n.symbol) == out.end()) out.push_back(n.symbol);
  return out;
}

int64_t IntExpr::eval(const Lookup& lookup) const { return eval_node(root_, lookup); }

int64_t IntExpr::eval_node(int index, const Lookup& lookup) const {
  const Node& n = nodes_[static_cast<size_t>(index)];
  const auto overflow = [&] { return InputError(fmt::format("'{}': int64 overflow", shown(text_))); };
  if (n.kind == Node::kNumber) return n.value;
  if (n.kind == Node::kSymbol) {
    const std::optional<int64_t> v = lookup(n.symbol);
    if (!v) throw InputError(fmt::format("'{}': unknown symbol '{}'", shown(text_), n.symbol));
    return *v;
  }
  const int64_t a = eval_node(n.a, lookup);
  if (n.kind == Node::kNeg) {
    if (a == INT64_MIN) throw overflow();
    return -a;
  }
  const int64_t b = eval_node(n.b, lookup);
  int64_t r = 0;
  switch (n.kind) {
    case Node::kAdd:
      if (__builtin_add_overflow(a, b, &r)) throw overflow();
      return r;
    case Node::kSub:
      if (__builtin_sub_overflow(a, b, &r)) throw overflow();
      return r;
    case Node::kMul:
      if (__builtin_mul_overflow(a, b, &r)) throw overflow();
      return r;
    case Node::kDiv:
      if (b == 0) throw InputError(fmt::format("'{}': division by zero", shown(text_)));
      if (a == INT64_MIN && b == -1) throw overflow();
      return a / b;
    case Node::kCeilDiv:
      if (b <= 0) throw InputError(fmt::format("'{}': ceil_div by {} (the divisor must be ≥ 1)", shown(text_), b));
      if (a <= 0) return -((-a) / b);  // a ≤ 0: rounding toward zero is the ceiling
      return (a - 1) / b + 1;
    case Node::kMin: return a < b ? a : b;
    case Node::kMax: return a > b ? a : b;
    default: break;
  }
  throw InputError(fmt::format("'{}': internal error: bad expression node", shown(text_)));
}

std::vector<IntExpr> parse_shape_exprs(std::string_view text) {
  size_t first = text.find_first_not_of(" \t");
  size_t last = text.find_last_not_of(" \t");
  if (first == std::string_view::npos || text[first] != '[' || text[last] != ']')
    throw InputError(fmt::format("'{}': a shape is written [d1, d2, …] ([] for a scalar)", shown(std::string(text))));
  const std::string_view inner = text.substr(first + 1, last - first - 1);
  std::vector<IntExpr> dims;
  if (inner.find_first_not_of(" \t") == std::string_view::npos) return dims;
  // Split at top-level commas (a function's commas sit inside parentheses).
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    if (i < inner.size() && inner[i] == '(') ++depth;
    if (i < inner.size() && inner[i] == ')') --depth;
    if (i == inner.size() || (inner[i] == ',' && depth == 0)) {
      std::string_view piece = inner.substr(start, i - start);
      while (!piece.empty() && (piece.front() == ' ' || piece.front() == '\t')) piece.remove_prefix(1);
      while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t')) piece.remove_suffix(1);
      try {
        dims.push_back(IntExpr::parse(piece));
      } catch (const InputError& e) {  // the whole shape too: "'D +'" alone does not say where it sits
        throw InputError(fmt::format("'{}', dimension {}: {}", shown(std::string(text)), dims.size() + 1, e.what()));
      }
      start = i + 1;
    }
  }
  return dims;
}

}  // namespace gpubench
