#pragma once

// The pieces of Python every form of a reduced finding's repro.py is made of: literals, tensors,
// the compiled API, the options of the calls. The three forms (short_repro.cpp,
// unrolled_repro.cpp, general_repro.cpp) are chosen between by EmitMinimalRepro.

#include "corpus/case.h"
#include "reducers/case/minimal_repro.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace reducers::repro {

// A JSON value as a Python literal.
std::string PyLiteral(const nlohmann::json &value);
std::string OptionalSize(const std::optional<std::int64_t> &size);
// The configuration the script patches, as a Python dict literal.
std::string ConfigLiteral(const corpus::Case &c, ReproConfig which);
// `name = torch.tensor([...], dtype=...).reshape(...)`.
std::string TensorLine(const corpus::CapturedTensor &tensor);
std::string TensorLines(const corpus::Case &c);
// How the script compiles the case's API: torch.compile, or the aoti helper.
std::string CompiledApi(const corpus::Case &c);
// The AOTInductor helper's source for an aoti case, else nothing.
std::string AotiHelperFor(const corpus::Case &c);
// The mask and score functions' sources as the case writes them.
std::string FunctionSources(const corpus::Case &c);
std::string BlockSizeLiteral(const corpus::BlockMaskArguments &mask);
std::string WithoutLastNewline(std::string text);
// flex_attention's options beyond the inputs, as the call spells them: ", scale=0.5, ...".
std::string AttentionOptions(const corpus::AttentionArguments &a);
// create_block_mask's keyword arguments after the mask's sizes, as the script spells them.
std::string CreateBlockMaskOptions(const corpus::Case &c);
// An index program's short form body (apis/index_program.cpp's row): mask_mod on broadcast
// aranges, reduced as the case says, eager against `compiled`.
std::string IndexProgramBody(const corpus::Case &c, const std::string &compiled);
// The line that sets the ISA Inductor targets, where the case sets it, indented by `indent`.
std::string CapabilityLine(const corpus::Case &c, const std::string &indent);
// Every line indented by four spaces (empty lines stay empty).
std::string Indented(const std::string &source);

// The three forms, each a whole script without the prelude.
std::string EmitShortRepro(const corpus::Case &c, const std::string &signature, ReproConfig config);
// Nothing where the case needs the general form, or its failure's kind needs a reference.
std::optional<std::string> EmitUnrolledRepro(const corpus::Case &c, corpus::FindingKind kind,
                                             const std::string &signature, ReproConfig config);
std::string EmitGeneralRepro(const corpus::Case &c, const std::string &signature,
                             ReproConfig config);

} // namespace reducers::repro
