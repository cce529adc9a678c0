#pragma once

// The op program's builder, shared by its halves: op_program.cpp draws the values (sources from
// the indices or from tables of edge values) and their operands; op_program_ops.cpp draws the
// statements, the ops of each dtype family. Internal to fuzzer/generate: nothing outside
// includes it.

#include "corpus/case.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/random.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::generate {

class OpProgramBuilder {
public:
  OpProgramBuilder(Random &random, const GenerationPolicy &policy, corpus::Case &c,
                   std::map<std::string, int> &features)
      : random_(random), policy_(policy), case_(c), features_(features),
        kv_len_(c.create_block_mask.kv_len) {}

  void Build();
  std::string Source() const;
  const std::string &OutputDtype() const { return output_dtype_; }

private:
  struct Value {
    std::string name;
    std::string dtype;
    double bound; // the largest magnitude it may hold (infinity for floats)
  };

  std::string Draw(const std::string &category);
  std::string DrawDtype() { return Draw("op_dtype"); }
  Value Emit(const std::string &expression, const std::string &dtype, double bound);

  // op_program.cpp: the values and the operands.
  std::string Index();
  Value Source(const std::string &dtype);
  Value EdgeSource(const std::string &dtype);
  Value PaddedSource(corpus::CapturedTensor table, const std::string &dtype,
                     const std::string &view);
  std::optional<Value> Operand(const Value &x, bool mixed);
  std::string IntConstant(const Value &x, bool nonzero, bool positive);
  std::string Divisor(const Value &x, const std::optional<Value> &y);

  // op_program_ops.cpp: the statements.
  Value Statement(const Value &x);
  std::optional<Value> CommonOp(const Value &x, const std::string &op);
  Value Cast(const Value &x, const std::string &to);
  bool Fits(const std::string &dtype, double bound) const;
  Value IntOp(const Value &x, const std::string &op);
  std::string IntCountSource(const Value &x);
  Value FloatOp(const Value &x, const std::string &op);
  Value BoolOp(const Value &x, const std::string &op);

  Random &random_;
  const GenerationPolicy &policy_;
  corpus::Case &case_;
  std::map<std::string, int> &features_;
  std::vector<Value> values_;
  std::vector<std::string> body_;
  std::string output_dtype_;
  double bound_of_index_ = 0;
  std::int64_t kv_len_;
};

} // namespace fuzzer::generate
