#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fuzzer::generate {

enum class ValueType { kInt, kBool, kFloat };

// A typed expression over the arguments of mask_mod(b, h, q_idx, kv_idx) and
// score_mod(score, b, h, q_idx, kv_idx). `indexed` is true when the value depends on an index
// or the score, i.e. it is a tensor at run time and not a Python number.
struct Expression {
  std::string op; // "var", "int", "float", "bool", a Python operator, or a function name
  ValueType type = ValueType::kInt;
  std::string name; // the variable or table, for "var" and "table"
  std::int64_t integer = 0;
  double real = 0;
  bool indexed = false;
  std::vector<Expression> args;

  static Expression Var(const std::string &name, ValueType type);
  static Expression Int(std::int64_t value);
  static Expression Float(double value);
  static Expression Binary(const std::string &op, Expression left, Expression right);
  static Expression Unary(const std::string &op, Expression operand);
  static Expression Call(const std::string &function, std::vector<Expression> args, ValueType type);
  static Expression Table(const std::string &table, ValueType type, Expression index);
};

// Python source for the expression, fully parenthesised so precedence never matters.
std::string ToPython(const Expression &expression);

} // namespace fuzzer::generate
