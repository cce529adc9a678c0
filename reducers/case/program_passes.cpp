#include "reducers/case/program_passes.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace reducers::program {
namespace {

using corpus::CapturedTensor;
using corpus::Case;
using corpus::ProgramInput;

const CapturedTensor *FindTensor(const Case &c, const std::string &name) {
  const auto found = std::find_if(c.tensors.begin(), c.tensors.end(),
                                  [&](const CapturedTensor &t) { return t.name == name; });
  return found == c.tensors.end() ? nullptr : &*found;
}

CapturedTensor *FindTensor(Case &c, const std::string &name) {
  return const_cast<CapturedTensor *>(FindTensor(std::as_const(c), name));
}

std::vector<std::int64_t> ContiguousStrides(const std::vector<std::int64_t> &size) {
  std::vector<std::int64_t> stride(size.size());
  std::int64_t step = 1;
  for (std::size_t d = size.size(); d-- > 0;) {
    stride[d] = step;
    step *= std::max<std::int64_t>(size[d], 1);
  }
  return stride;
}

// The first `elements` values of a storage, as a one-dimensional tensor of them.
void CutTo(CapturedTensor &tensor, std::int64_t elements) {
  tensor.shape = {elements};
  if (tensor.IsFloating())
    tensor.reals.resize(static_cast<std::size_t>(elements));
  else
    tensor.integers.resize(static_cast<std::size_t>(elements));
}

// Every storage an input reads cut to the most its views reach (at least one element).
void CutStorages(Case &c) {
  for (auto &tensor : c.tensors) {
    std::int64_t reach = 0;
    bool read = false;
    for (const auto &input : c.tensor_program->inputs)
      if (input.tensor == tensor.name) {
        read = true;
        reach = std::max(reach, Reach(input));
      }
    reach = std::max<std::int64_t>(reach, 1);
    if (read && reach < static_cast<std::int64_t>(tensor.size()))
      CutTo(tensor, reach);
  }
}

std::string FreshTensorName(const Case &c) {
  for (int k = 0;; ++k)
    if (!FindTensor(c, fmt::format("t{}", k)))
      return fmt::format("t{}", k);
}

// Input `i` of `candidate` made contiguous at offset 0 over exactly the values it read in `c`;
// false where it already is, reads nothing, or would need more values than its storage holds
// (an expanded input, whose repeated values would only grow the case).
bool MakeContiguous(const Case &c, Case &candidate, std::size_t i) {
  const ProgramInput &input = c.tensor_program->inputs[i];
  const CapturedTensor *storage = FindTensor(c, input.tensor);
  const std::int64_t elements = ViewElements(input);
  if (!storage || elements == 0 || elements > static_cast<std::int64_t>(storage->size()))
    return false;
  const auto strides = ContiguousStrides(input.size);
  if (input.offset == 0 && input.stride == strides &&
      elements == static_cast<std::int64_t>(storage->size()) && storage->shape.size() == 1)
    return false;
  CapturedTensor values = ViewValues(*storage, input);
  ProgramInput &changed = candidate.tensor_program->inputs[i];
  const auto &inputs = candidate.tensor_program->inputs;
  const bool shared = std::any_of(inputs.begin(), inputs.end(), [&](const ProgramInput &other) {
    return &other != &changed && other.tensor == changed.tensor;
  });
  if (shared) { // another view reads the old storage: the values get a storage of their own
    values.name = FreshTensorName(candidate);
    changed.tensor = values.name;
    candidate.tensors.push_back(std::move(values));
  } else {
    values.name = changed.tensor;
    *FindTensor(candidate, changed.tensor) = std::move(values);
  }
  changed.stride = strides;
  changed.offset = 0;
  return true;
}

std::vector<std::int64_t> SmallerExtents(std::int64_t extent) {
  std::vector<std::int64_t> smaller;
  for (const std::int64_t size : {std::int64_t{1}, extent / 2})
    if (size >= 1 && size < extent &&
        std::find(smaller.begin(), smaller.end(), size) == smaller.end())
      smaller.push_back(size);
  return smaller;
}

} // namespace

std::int64_t ViewElements(const ProgramInput &input) {
  std::int64_t elements = 1;
  for (const auto size : input.size)
    elements *= size;
  return elements;
}

std::int64_t Reach(const ProgramInput &input) {
  if (ViewElements(input) == 0)
    return input.offset;
  std::int64_t last = input.offset;
  for (std::size_t d = 0; d < input.size.size(); ++d)
    last += (input.size[d] - 1) * input.stride[d];
  return last + 1;
}

CapturedTensor ViewValues(const CapturedTensor &storage, const ProgramInput &input) {
  CapturedTensor values{.name = storage.name, .dtype = storage.dtype};
  const std::int64_t elements = ViewElements(input);
  values.shape = {elements};
  std::vector<std::int64_t> index(input.size.size(), 0);
  for (std::int64_t n = 0; n < elements; ++n) {
    std::int64_t at = input.offset;
    for (std::size_t d = 0; d < index.size(); ++d)
      at += index[d] * input.stride[d];
    if (storage.IsFloating())
      values.reals.push_back(storage.reals.at(static_cast<std::size_t>(at)));
    else
      values.integers.push_back(storage.integers.at(static_cast<std::size_t>(at)));
    for (std::size_t d = index.size(); d-- > 0;) { // the next index, the last dimension fastest
      if (++index[d] < input.size[d])
        break;
      index[d] = 0;
    }
  }
  return values;
}

std::vector<Case> ContiguousInputs(const Case &c) {
  std::vector<Case> candidates;
  if (!c.tensor_program)
    return candidates;
  const std::size_t inputs = c.tensor_program->inputs.size();
  Case all = c;
  std::size_t changed = 0;
  for (std::size_t i = 0; i < inputs; ++i) {
    Case candidate = c;
    if (MakeContiguous(c, candidate, i))
      candidates.push_back(std::move(candidate));
    changed += MakeContiguous(c, all, i);
  }
  if (changed > 1)
    candidates.push_back(std::move(all));
  return candidates;
}

std::vector<Case> ShrinkInputs(const Case &c) {
  std::vector<Case> candidates;
  if (!c.tensor_program)
    return candidates;
  const auto push = [&](const std::function<void(Case &)> &edit) {
    Case candidate = c;
    edit(candidate);
    CutStorages(candidate);
    if (!(candidate == c))
      candidates.push_back(std::move(candidate));
  };
  push([](Case &) {}); // the storages alone cut to what the views reach
  // Every dimension of one extent at once (a matrix product's shared dimension), largest first.
  std::set<std::int64_t, std::greater<>> extents;
  for (const auto &input : c.tensor_program->inputs)
    extents.insert(input.size.begin(), input.size.end());
  for (const auto extent : extents) {
    int dims = 0;
    for (const auto &input : c.tensor_program->inputs)
      dims += static_cast<int>(std::count(input.size.begin(), input.size.end(), extent));
    if (dims < 2)
      continue;
    for (const auto size : SmallerExtents(extent))
      push([&](Case &candidate) {
        for (auto &input : candidate.tensor_program->inputs)
          std::replace(input.size.begin(), input.size.end(), extent, size);
      });
  }
  for (std::size_t i = 0; i < c.tensor_program->inputs.size(); ++i)
    for (std::size_t d = 0; d < c.tensor_program->inputs[i].size.size(); ++d)
      for (const auto size : SmallerExtents(c.tensor_program->inputs[i].size[d]))
        push([&](Case &candidate) { candidate.tensor_program->inputs[i].size[d] = size; });
  return candidates;
}

std::vector<Case> DropDynamic(const Case &c) {
  std::vector<Case> candidates;
  if (!c.tensor_program || c.tensor_program->dynamic.empty())
    return candidates;
  Case none = c;
  none.tensor_program->dynamic.clear();
  candidates.push_back(std::move(none));
  const auto &dynamic = c.tensor_program->dynamic;
  for (std::size_t i = 0; dynamic.size() > 1 && i < dynamic.size(); ++i) {
    Case candidate = c;
    candidate.tensor_program->dynamic.erase(candidate.tensor_program->dynamic.begin() +
                                            static_cast<std::ptrdiff_t>(i));
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

std::vector<Case> SimplifyDtypes(const Case &c) {
  std::vector<Case> candidates;
  if (!c.tensor_program)
    return candidates;
  const auto simplify = [](CapturedTensor &tensor) {
    if (!tensor.IsFloating() || tensor.dtype == "float32")
      return false;
    tensor.dtype = "float32";
    for (auto &value : tensor.reals) // float64's values rounded to the nearest float32
      value = static_cast<double>(static_cast<float>(value));
    return true;
  };
  Case all = c;
  std::size_t changed = 0;
  for (auto &tensor : all.tensors)
    changed += simplify(tensor);
  if (changed == 0)
    return candidates;
  candidates.push_back(all);
  for (std::size_t i = 0; changed > 1 && i < c.tensors.size(); ++i) {
    Case candidate = c;
    if (simplify(candidate.tensors[i]))
      candidates.push_back(std::move(candidate));
  }
  return candidates;
}

} // namespace reducers::program
