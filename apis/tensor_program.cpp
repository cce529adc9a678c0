// tensor_program: the case's function (its "mask_mod" field, the program) called on strided
// views of the case's tensors, compiled on its own (corpus/case.h says the form). Its row wires in
// its own files: its field of the case (corpus/case_program_fields.cpp), its draws
// (fuzzer/generate/tensor_program*.cpp) and policy (tensor_program_policy.cpp), its reduction
// passes (reducers/case/program_passes.cpp), and here its repro script
// (reducers/templates/program_repro.py.tmpl). The worker's side is api_tensor_program.py.
#include "apis/api.h"

#include "corpus/case_program_fields.h"
#include "fuzzer/generate/tensor_program.h"
#include "reducers/case/program_passes.h"
#include "reducers/templates.h"
#include "support/templates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace apis {
// Its helpers, in a namespace of its own: the folder is compiled as one unity TU.
namespace tensor_program {

using nlohmann::json;
namespace repro = reducers::repro;

constexpr char kName[] = "tensor_program";

// Its own script (templates/program_repro.py.tmpl): the storages, the program, its inputs as
// strided views of copies of them, eager against compiled, every output and every input after the
// call compared with assert_close's defaults (exact for integers and bools).
std::optional<std::string> Repro(const corpus::Case &c, const std::string &signature,
                                 reducers::ReproConfig config) {
  if (!c.tensor_program || !c.mask_mod)
    return std::nullopt;
  std::vector<std::string> inputs;
  for (const auto &input : c.tensor_program->inputs)
    inputs.push_back(fmt::format("torch.as_strided({}.clone(), {}, {}{})", input.tensor,
                                 repro::PyLiteral(json(input.size)),
                                 repro::PyLiteral(json(input.stride)),
                                 input.offset ? fmt::format(", {}", input.offset) : ""));
  std::string before_call;
  for (const auto &mark : c.tensor_program->dynamic)
    before_call += fmt::format("torch._dynamo.mark_dynamic(args[{}], {})\n", mark[0], mark[1]);
  if (const std::string capability = repro::CapabilityLine(c, ""); !capability.empty())
    before_call += "import os\n" + capability;
  return support::FillTemplate(reducers::Template("program_repro.py.tmpl"),
                               {{"SIGNATURE", signature.substr(0, 200)},
                                {"CASE", c.name},
                                {"CONFIG", repro::ConfigLiteral(c, config)},
                                {"TENSORS", repro::TensorLines(c)},
                                {"FUNCTIONS", repro::FunctionSources(c)},
                                {"INPUTS", fmt::format("{}", fmt::join(inputs, ", "))},
                                {"PROGRAM", c.mask_mod->name},
                                {"BEFORE_CALL", before_call},
                                {"COMPILED", repro::CompiledApi(c)}});
}

// The storages' elements are counted with the tensors; these are the views the program reads.
std::optional<std::int64_t> Volume(const corpus::Case &c) {
  if (!c.tensor_program)
    return std::nullopt;
  std::int64_t volume = 0;
  for (const auto &input : c.tensor_program->inputs)
    volume += reducers::program::ViewElements(input);
  return volume;
}

} // namespace tensor_program

Api TensorProgram() {
  using reducers::OwnPass;
  namespace program = reducers::program;
  return {
      .name = tensor_program::kName,
      .corpus = {.noun = "tensor program",
                 .format_version = 3,
                 .block_mask = false,
                 .mask_mod_is = "the program: its name and source",
                 .program = true,
                 .from_mask_module = false,
                 .fields = {{"tensor_program", &corpus::WriteTensorProgram,
                             &corpus::ReadTensorProgram}}},
      .generate = {.chance = "p_tensor_program",
                   .stream = static_cast<fuzzer::generate::RandomStream>(0x7e5502c0deULL),
                   .draw = &fuzzer::generate::DrawTensorProgram,
                   .add_policy = &fuzzer::generate::AddTensorProgramPolicy,
                   .aoti = false,
                   // No block mask, attention, calls or constants: its knobs, its tables' dtypes
                   // and its source change, the source spliced only with another program's.
                   .mutations = {"knob", "table_dtype", "operator", "constant", "wrap", "detour",
                                 "subexpression", "splice"},
                   .splice_same_api = true,
                   .uint8_tables = true},
      .reduce = {
          .tensors_are_storages = true,
          .passes =
              {{"drop-dynamic", "a tensor program's dynamic marks dropped (all, then each)",
                OwnPass<tensor_program::kName, program::DropDynamic>},
               {"contiguous-inputs",
                "a tensor program's input contiguous at offset 0 over exactly the values it read",
                OwnPass<tensor_program::kName, program::ContiguousInputs>},
               {"shrink-inputs",
                "a tensor program's input smaller in one dimension (1, then half), storages cut "
                "to what the views reach",
                OwnPass<tensor_program::kName, program::ShrinkInputs>},
               {"simplify-dtypes",
                "a tensor program's float16, bfloat16 and float64 storages as float32",
                OwnPass<tensor_program::kName, program::SimplifyDtypes>}},
          .volume = &tensor_program::Volume,
          .repro = &tensor_program::Repro,
          .compiles_mask_mod = true}};
}

} // namespace apis
