#pragma once

// A small tensor program for the tests of its reduction and repro: x0 a transposed 3x4 view at
// offset 2 of 14 elements, x1 a contiguous 4x2 view of exactly 8, both marked dynamic in one
// dimension; the program multiplies them, reduces, normalises and doubles x0 in place.
#include "corpus/case.h"

#include <nlohmann/json.hpp>

#include <string>

namespace test_support {

inline nlohmann::json Storage(const std::string &name, int elements,
                              const std::string &dtype = "float32") {
  nlohmann::json values = nlohmann::json::array();
  for (int i = 0; i < elements; ++i)
    values.push_back(dtype == "int64" ? nlohmann::json(i) : nlohmann::json(0.25 * i - 2));
  return {{"name", name}, {"dtype", dtype}, {"shape", {elements}}, {"values", values}};
}

inline corpus::Case Program(const std::string &source =
                                "def program(x0, x1):\n    v0 = torch.mm(x0, x1)\n"
                                "    v1 = torch.relu(v0)\n    v2 = v1.sum(dim=0, keepdim=True)\n"
                                "    v3 = torch.softmax(v0, dim=1)\n    x0.mul_(2)\n"
                                "    return (v2, v3)\n") {
  using nlohmann::json;
  return corpus::CaseFromJson(
      {{"format_version", 3},
       {"name", "tp-test"},
       {"api", "tensor_program"},
       {"mask_mod", {{"name", "program"}, {"source", source}}},
       {"tensors", {Storage("t0", 14), Storage("t1", 8)}},
       {"inductor", json::object()},
       {"tensor_program",
        {{"inputs",
          {{{"tensor", "t0"}, {"size", {3, 4}}, {"stride", {1, 3}}, {"offset", 2}},
           {{"tensor", "t1"}, {"size", {4, 2}}, {"stride", {2, 1}}}}},
         {"dynamic", {{0, 0}, {1, 1}}}}}});
}

} // namespace test_support
