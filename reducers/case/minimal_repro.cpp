#include "reducers/case/minimal_repro.h"

#include "reducers/case/api_row.h"
#include "reducers/case/repro_python.h"

namespace reducers {
namespace {

// Whether the case needs the general form of the repro: a call sequence, closure constants,
// or flex_attention inputs and options the short form does not spell.
bool NeedsGeneralForm(const corpus::Case &c) {
  if (ReduceApiOf(c.api).repro) // its own script (api_row.h): always the short form
    return false;
  if (!c.calls.empty() || !c.constants.empty() || c.compile_scope != corpus::kCompileApi ||
      !c.create_block_mask.separate_full_blocks)
    return true;
  if (!c.attention)
    return false;
  const auto &a = *c.attention;
  return a.scale || a.return_lse || !a.kernel_options.is_null() || !a.qkv.empty() ||
         !a.block_mask_tensors.empty() || a.layout != corpus::kContiguousLayout || a.from_kv_blocks;
}

} // namespace

std::string EmitMinimalRepro(const corpus::Case &c, corpus::FindingKind kind,
                             const std::string &signature, ReproConfig config,
                             const std::string &prelude) {
  std::string script;
  if (!NeedsGeneralForm(c))
    script = repro::EmitShortRepro(c, signature, config);
  else if (auto unrolled = repro::EmitUnrolledRepro(c, kind, signature, config))
    script = std::move(*unrolled);
  else
    script = repro::EmitGeneralRepro(c, signature, config);
  // Before torch is imported: the prelude may run the script again in another environment.
  script.insert(script.find("import torch\n"), prelude);
  return script;
}

} // namespace reducers
