#include "fuzzer/generate/expression.h"

#include <fmt/format.h>

#include <set>

namespace fuzzer::generate {

namespace {

const std::set<std::string> kComparisons = {"<", "<=", ">", ">=", "==", "!="};

bool AnyIndexed(const std::vector<Expression> &args) {
  for (const auto &arg : args)
    if (arg.indexed)
      return true;
  return false;
}

} // namespace

Expression Expression::Var(const std::string &name, ValueType type) {
  return {.op = "var", .type = type, .name = name, .indexed = true};
}

Expression Expression::Int(std::int64_t value) {
  return {.op = "int", .type = ValueType::kInt, .integer = value};
}

Expression Expression::Float(double value) {
  return {.op = "float", .type = ValueType::kFloat, .real = value};
}

Expression Expression::Binary(const std::string &op, Expression left, Expression right) {
  ValueType type = left.type == ValueType::kFloat || right.type == ValueType::kFloat
                       ? ValueType::kFloat
                       : left.type;
  if (kComparisons.contains(op))
    type = ValueType::kBool;
  std::vector<Expression> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  const bool indexed = AnyIndexed(args);
  return {.op = op, .type = type, .indexed = indexed, .args = std::move(args)};
}

Expression Expression::Unary(const std::string &op, Expression operand) {
  const ValueType type = operand.type;
  const bool indexed = operand.indexed;
  std::vector<Expression> args;
  args.push_back(std::move(operand));
  return {.op = op, .type = type, .indexed = indexed, .args = std::move(args)};
}

Expression Expression::Call(const std::string &function, std::vector<Expression> args,
                            ValueType type) {
  const bool indexed = AnyIndexed(args);
  return {.op = function, .type = type, .indexed = indexed, .args = std::move(args)};
}

Expression Expression::Table(const std::string &table, ValueType type, Expression index) {
  std::vector<Expression> args;
  args.push_back(std::move(index));
  return {.op = "table", .type = type, .name = table, .indexed = true, .args = std::move(args)};
}

std::string ToPython(const Expression &e) {
  if (e.op == "var")
    return e.name;
  if (e.op == "int")
    return e.integer < 0 ? fmt::format("({})", e.integer) : fmt::format("{}", e.integer);
  if (e.op == "float") {
    std::string text = fmt::format("{}", e.real);
    if (text.find_first_of(".e") == std::string::npos)
      text += ".0";
    return e.real < 0 ? "(" + text + ")" : text;
  }
  if (e.op == "table") { // one index, or one per dimension of the table
    std::string indices;
    for (const auto &arg : e.args)
      indices += (indices.empty() ? "" : ", ") + ToPython(arg);
    return fmt::format("{}[{}]", e.name, indices);
  }
  if (e.op == "~")
    return fmt::format("(~{})", ToPython(e.args[0]));
  if (e.op == "neg")
    return fmt::format("(-{})", ToPython(e.args[0]));
  if (e.op == "abs")
    return fmt::format("abs({})", ToPython(e.args[0]));
  if (e.op == "item")
    return fmt::format("int({}.item())", ToPython(e.args[0]));
  if (e.args.size() == 2 && e.op.find_first_not_of("+-*/%&|^<>=!") == std::string::npos)
    return fmt::format("({} {} {})", ToPython(e.args[0]), e.op, ToPython(e.args[1]));
  // torch.minimum/maximum need two tensors; against a number, clamp says the same.
  if ((e.op == "torch.minimum" || e.op == "torch.maximum") && !e.args[1].indexed)
    return fmt::format("torch.clamp({}, {}={})", ToPython(e.args[0]),
                       e.op == "torch.minimum" ? "max" : "min", ToPython(e.args[1]));
  std::string joined;
  for (const auto &arg : e.args)
    joined += (joined.empty() ? "" : ", ") + ToPython(arg);
  return fmt::format("{}({})", e.op, joined);
}

} // namespace fuzzer::generate
