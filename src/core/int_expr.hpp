#pragma once
// Integer expressions over named symbols, as plugins (include/gpubench/plugin.h) write tensor shapes, fill bounds
// and work counts: "B * D * elem", "[U + 1]", "ceil_div(N, 64) * 64".
//
// Grammar (whitespace between tokens is ignored):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*          '/' divides integers, rounding toward zero (C++)
//   unary   := '-' unary | primary
//   primary := INTEGER | SYMBOL | SYMBOL '(' expr (',' expr)* ')' | '(' expr ')'
//   SYMBOL  := [A-Za-z_][A-Za-z0-9_]*
// Functions: ceil_div(a, b) (b > 0), min(a, b), max(a, b). Arithmetic is int64 and refuses overflow.
// Our own code rather than a library: the expression libraries packaged in Debian (muparser, exprtk) compute in
// double, which cannot hold byte counts above 2^53 exactly nor report integer overflow.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace gpubench {

/// A parsed integer expression. Copyable; evaluation does not allocate beyond its stack.
class IntExpr {
 public:
  /// Looks a symbol up: its value, or std::nullopt when the symbol is unknown.
  using Lookup = std::function<std::optional<int64_t>(std::string_view symbol)>;

  /// Parses `text`. Throws InputError "'<text>': <problem> at column <n>" (columns from 1), e.g.
  /// "'B * ': expected a number, a symbol or '(' at column 5".
  static IntExpr parse(std::string_view text);

  /// The expression as written.
  const std::string& text() const { return text_; }
  /// The symbols it names (function names excluded), each once, in order of first use.
  std::vector<std::string> symbols() const;
  /// The value, symbols resolved by `lookup`. Throws InputError naming the expression for an unknown symbol, a
  /// division by zero, ceil_div by b ≤ 0 or an int64 overflow.
  int64_t eval(const Lookup& lookup) const;

 private:
  /// One node of the parsed tree; children are indices into nodes_.
  struct Node {
    enum Kind { kNumber, kSymbol, kAdd, kSub, kMul, kDiv, kNeg, kCeilDiv, kMin, kMax } kind = kNumber;
    int64_t value = 0;      ///< kNumber
    std::string symbol;     ///< kSymbol
    int a = -1, b = -1;     ///< operands
  };
  int64_t eval_node(int index, const Lookup& lookup) const;

  std::string text_;
  std::vector<Node> nodes_;
  int root_ = -1;
  friend class IntExprParser;
};

/// Parses a shape "[e1, e2, …]" ("[]": a scalar) into one expression per dimension. Throws InputError as
/// IntExpr::parse behind "'<text>', dimension <k>: " (k from 1), or "'<text>': a shape is written [d1, d2, …]".
std::vector<IntExpr> parse_shape_exprs(std::string_view text);

}  // namespace gpubench
