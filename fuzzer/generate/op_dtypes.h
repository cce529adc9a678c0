#pragma once

// The dtypes op programs draw (op_program.cpp): what each is, torch's promotion between them,
// the magnitudes Inductor's C++ can hold, and the edge values tables of each dtype hold.
// Internal to fuzzer/generate: nothing outside includes it.

#include <cstdint>
#include <string>
#include <vector>

namespace fuzzer::generate {

enum class Kind { kBool, kUnsigned, kSigned, kFloat };

struct DtypeFacts {
  std::string name;
  int bits;
  Kind kind;
};

const std::vector<DtypeFacts> &Facts();
const DtypeFacts &FactsOf(const std::string &dtype);
bool IsFloat(const std::string &dtype);
bool IsBool(const std::string &dtype);
bool IsInteger(const std::string &dtype);

// torch's result type of two tensors (torch.result_type), for the dtypes programs draw.
std::string Promote(const std::string &a, const std::string &b);

// The largest magnitude a value of the dtype may hold without overflowing the C++ type Inductor
// computes it in: int for the narrow integers (promoted), the type itself for int32 and int64.
double ComputeLimit(const std::string &dtype);
// The largest magnitude the dtype holds (infinity for floats).
double DtypeMagnitude(const std::string &dtype);

// The edge values of a float dtype as bit patterns of the integer of its width (16-bit ones as
// the int16 they are), and of an integer dtype as values.
std::vector<std::int64_t> FloatBitPatterns(const std::string &dtype);
std::int64_t AsSigned16(std::int64_t bits);
std::vector<std::int64_t> IntegerEdges(const std::string &dtype);

} // namespace fuzzer::generate
