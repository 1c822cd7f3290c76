// Integer expressions of plugin shapes and work counts (core/int_expr.hpp).
#include <gtest/gtest.h>

#include <map>

#include "core/errors.hpp"
#include "core/int_expr.hpp"

namespace gpubench {
namespace {

int64_t eval(const std::string& text, const std::map<std::string, int64_t>& symbols = {}) {
  return IntExpr::parse(text).eval([&](std::string_view s) -> std::optional<int64_t> {
    const auto it = symbols.find(std::string(s));
    return it == symbols.end() ? std::nullopt : std::optional<int64_t>(it->second);
  });
}

std::string error_of(const std::string& text, const std::map<std::string, int64_t>& symbols = {}) {
  try {
    eval(text, symbols);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(IntExpr, PrecedenceAssociativityAndFunctions) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(eval("20 - 6 - 4"), 10);     // left to right
  EXPECT_EQ(eval("100 / 10 / 5"), 2);
  EXPECT_EQ(eval("7 / 2"), 3);           // integer division
  EXPECT_EQ(eval("-7 / 2"), -3);         // toward zero, as C++
  EXPECT_EQ(eval("- -3"), 3);
  EXPECT_EQ(eval("ceil_div(1178, 64) * 64"), 1216);
  EXPECT_EQ(eval("ceil_div(1152, 64)"), 18);
  EXPECT_EQ(eval("ceil_div(0, 64)"), 0);
  EXPECT_EQ(eval("min(3, max(1, 2))"), 2);
  EXPECT_EQ(eval("B * D * elem + (U + 1) * 4", {{"B", 65536}, {"D", 128}, {"elem", 2}, {"U", 2048}}),
            65536 * 128 * 2 + 2049 * 4);
}

TEST(IntExpr, SymbolsAreListedOnceInOrder) {
  EXPECT_EQ(IntExpr::parse("B * D + min(B, rows) * D").symbols(), (std::vector<std::string>{"B", "D", "rows"}));
}

TEST(IntExpr, ExactBeyondDoublePrecisionAndOverflowRefused) {
  // 2^53 + 1 is not a double: the reason this is integer arithmetic.
  EXPECT_EQ(eval("9007199254740992 + 1"), 9007199254740993);
  EXPECT_NE(error_of("4611686018427387904 * 2").find("int64 overflow"), std::string::npos);
  EXPECT_NE(error_of("99999999999999999999").find("too large"), std::string::npos);
}

TEST(IntExpr, ErrorsNameTheTextAndTheColumn) {
  EXPECT_EQ(error_of("B * "), "'B * ': expected a number, a symbol or '(' at column 5");
  EXPECT_EQ(error_of("(B + 1"), "'(B + 1': expected ')' at column 7");
  EXPECT_EQ(error_of("B $ 2"), "'B $ 2': unexpected '$' at column 3");
  EXPECT_EQ(error_of("pow(B, 2)"), "'pow(B, 2)': unknown function 'pow' (known: ceil_div, min, max) at column 1");
  EXPECT_EQ(error_of("min(B)"), "'min(B)': min takes two arguments: expected ',' at column 6");
  EXPECT_EQ(error_of("B * Q", {{"B", 1}}), "'B * Q': unknown symbol 'Q'");
  EXPECT_EQ(error_of("B / (D - 4)", {{"B", 8}, {"D", 4}}), "'B / (D - 4)': division by zero");
  EXPECT_EQ(error_of("ceil_div(B, D)", {{"B", 8}, {"D", 0}}), "'ceil_div(B, D)': ceil_div by 0 (the divisor must be ≥ 1)");
  // A divisor written as the number 0 is refused when the text is read, before any size is known.
  EXPECT_EQ(error_of("B / 0"), "'B / 0': division by the number 0");
  EXPECT_EQ(error_of("ceil_div(B, 0)"), "'ceil_div(B, 0)': ceil_div by the number 0");
  EXPECT_EQ(eval("B / -2", {{"B", 8}}), -4);
}

TEST(IntExpr, ShapesSplitAtTopLevelCommas) {
  const auto dims = parse_shape_exprs("[U + 1, min(B, 4), D]");
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_EQ(dims[1].text(), "min(B, 4)");
  EXPECT_TRUE(parse_shape_exprs("[]").empty());
  EXPECT_THROW(parse_shape_exprs("B, D"), InputError);
  EXPECT_THROW(parse_shape_exprs("[B, ]"), InputError);
  try {  // a bad dimension names the whole shape and its place in it
    (void)parse_shape_exprs("[B, D +]");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "'[B, D +]', dimension 2: 'D +': expected a number, a symbol or '(' at column 4");
  }
}

}  // namespace
}  // namespace gpubench
