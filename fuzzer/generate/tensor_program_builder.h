#pragma once

// The tensor program's builder, shared by its parts: tensor_program.cpp draws the structure
// (the inputs, their layouts, the statements' loop), the values of the storages and the
// emission; tensor_program_ops.cpp the elementwise, reduction, scan, view and data-movement
// rows; tensor_program_nn.cpp the indexing, matmul, convolution, normalisation, pooling and
// in-place rows. Internal to fuzzer/generate: nothing outside includes it.

#include "corpus/case.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/random.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fuzzer::generate {

// A value of the program: its dtype and shape, as eager torch 2.6 gives them.
struct TensorValue {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  double bound = 0; // integers: the largest magnitude it may hold; floats and bools: unused
  // Per dimension, the input dimension (input * 16 + dim) it is unchanged from, Derived(that)
  // when it is computed from it (a slice, a pad, a merge), or -1: what may be marked dynamic
  // without Dynamo specialising it.
  std::vector<int> origin;
  int input = -1; // the program's argument it is, or -1
  std::int64_t Elements() const;
  int Rank() const { return static_cast<int>(shape.size()); }
};

// How an input's storage values are drawn: ordinary small values, the dtype's edge values, a
// permutation of 0..n-1 (unique in-range indices) or values in [0, n).
enum class Fill { kOrdinary, kEdges, kPermutation, kBelow };

struct InputDraft {
  TensorValue value;
  std::string layout; // one of TensorProgramLayouts()
  corpus::ProgramInput view;
  std::int64_t storage = 0; // elements of the captured tensor
  Fill fill = Fill::kOrdinary;
  std::int64_t below = 0; // kPermutation, kBelow: n
  bool Writable() const { return layout != "expanded"; }
};

class TensorProgramBuilder {
public:
  TensorProgramBuilder(Random &random, const GenerationPolicy &policy,
                       std::map<std::string, int> &features)
      : random_(random), policy_(policy), features_(features) {}

  void Build();                 // the structure: inputs and statements
  void Finish(corpus::Case &c); // the values and the emission
  bool HasMatmul() const { return has_matmul_; }

private:
  friend struct TensorRows;
  using Value = TensorValue;
  using Shape = std::vector<std::int64_t>;

  // tensor_program.cpp: drawing and bookkeeping.
  std::string Draw(const std::string &category); // counted as category:option
  std::int64_t DrawSize(bool inner);
  Shape DrawShape(int rank);
  std::string DrawDtype() { return policy_.Draw(random_, "program_dtype"); } // counted by AddInput
  Value AddInput(const std::string &dtype, const Shape &shape, bool may_expand = true,
                 Fill fill = Fill::kOrdinary, std::int64_t below = 0);
  void Layout(InputDraft &draft, const std::string &layout);
  Value Emit(const std::string &expression, const std::string &dtype, const Shape &shape,
             double bound, std::vector<int> origin = {});
  void Line(const std::string &line) { body_.push_back("    " + line); }
  const Value &PickOperand();
  bool Statement();
  std::optional<Value> Row(const std::string &category, const std::string &op, const Value &x);
  void Specialize(const Value &v);
  // An index tensor of `shape` with values in [0, n): a new input reduced with remainder, or
  // (unique) a permutation input.
  std::string Indices(const Shape &shape, std::int64_t n, bool unique = false);
  // A second operand broadcastable with x (another value, a new input, or a scalar when
  // `scalar` is allowed); the result's shape and origins are unified.
  std::optional<Value> Partner(const Value &x, bool (*fits)(const std::string &), bool same_dtype);
  Shape Broadcast(const Value &a, const Value &b, std::vector<int> &origin);
  bool Fits(const Shape &shape) const;

  // tensor_program_ops.cpp
  std::optional<Value> Unary(const Value &x, const std::string &op);
  std::optional<Value> Binary(const Value &x, const std::string &op);
  std::optional<Value> Reduction(const Value &x, const std::string &op);
  std::optional<Value> Scan(const Value &x, const std::string &op);
  std::optional<Value> View(const Value &x, const std::string &op);
  std::optional<Value> Reshaped(const Value &x, const std::string &op);
  std::optional<Value> Movement(const Value &x, const std::string &op);
  std::optional<Value> Cast(const Value &x, const std::string &to);

  // tensor_program_nn.cpp
  std::optional<Value> Indexing(const Value &x, const std::string &op);
  std::optional<Value> Scatter(const Value &x, const std::string &op);
  std::optional<Value> Matmul(const Value &x, const std::string &op);
  std::optional<Value> Epilogue(const Value &y);
  std::optional<Value> Conv(const Value &x, const std::string &op);
  std::optional<Value> Norm(const Value &x, const std::string &op);
  std::optional<Value> Pool(const Value &x, const std::string &op);
  std::optional<Value> Inplace(const Value &x, const std::string &op);
  std::optional<Value> WritableInput(const Value &x);

  Random &random_;
  const GenerationPolicy &policy_;
  std::map<std::string, int> &features_;
  std::vector<InputDraft> inputs_;
  std::vector<Value> values_; // inputs and computed values
  std::vector<std::string> body_;
  std::vector<std::string> outputs_;
  std::set<int> specialized_;
  std::vector<std::vector<std::int64_t>> dynamic_;
  bool has_matmul_ = false;
  std::size_t max_inputs_ = 3;
};

// An extent computed from the input dimension `origin` stands for (symbolic, not that one).
inline int Derived(int origin) { return origin >= 0 ? -2 - origin : origin; }
// The input dimension an origin comes from, or -1.
inline int Underlying(int origin) { return origin >= 0 ? origin : origin <= -2 ? -2 - origin : -1; }

// Whether a dtype is one of the float / integer / non-bool dtypes (for Partner's `fits`).
bool AnyDtype(const std::string &dtype);
bool FloatDtype(const std::string &dtype);
bool IntegerDtype(const std::string &dtype);
bool NumericDtype(const std::string &dtype); // not bool
bool MatmulDtype(const std::string &dtype);  // float32, bfloat16, float64

// The largest magnitude an integer value may hold (1 for a bool; unused for floats).
double Bound(const TensorValue &v);
// Whether an integer result of `dtype` may hold `bound`: narrow integers wrap on conversion,
// which C++20 defines; int32 and int64 must not overflow.
bool Holds(const std::string &dtype, double bound);
std::string PyBool(bool value);
std::string Tuple(const std::vector<std::int64_t> &items); // "(3,)", "(2, 5)"

} // namespace fuzzer::generate
