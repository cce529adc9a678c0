#pragma once

#include "corpus/case.h"
#include "fuzzer/generate/policy.h"

#include <cstdint>
#include <map>
#include <string>

namespace fuzzer::generate {

// Bumped whenever the same (seed, policy) would generate a different case. 2: call sequences;
// 3: a mask made for a block mask with B=None (H=None) reads no b (h); 4: issue 32's families
// (decode shapes, kernel_options, layouts, float-table score_mods, optional knobs, AOTInductor),
// drawn from their own streams: a case without them is the case version 3 gave, but the
// default policy, whose hash every case records, has more entries; 5: the optional knob
// emulate_precision_casts; 6: issue 47's families (block masks built every way, sparse masks,
// score programs, return_lse, compiled functions, named constants), from their own stream.
// 7: the KV-cache decode family, drawn last from the reach stream. 8: op programs, from their
// own stream (op_program.h). 9: op programs twice as long, float32/float64 and the special
// functions drawn more often (issue 63's reach of the op surface). 10: tensor programs, from
// their own stream (tensor_program.h), about a third of the cases by default.
inline constexpr int kGeneratorVersion = 10;

struct GeneratedCase {
  corpus::Case c;
  std::map<std::string, int> features; // "int_operator://" -> times used, for --stats
};

struct GenerationRequest {
  std::uint64_t seed = 0;
  std::uint64_t index = 0;  // case `index` of the run started at `seed`
  std::string command_line; // recorded in the case
};

// Whether the generator may compile `c` with AOTInductor (compile_with "aoti"): p_aoti draws it.
bool AotiApplies(const corpus::Case &c);

// Generates one case in three phases: structure (API, mask form, patterns, shape classes,
// knobs), values (lengths, constants, captured tensors, expression trees), emission (Python
// source and the case). A pure function of (request.seed, request.index, policy).
GeneratedCase GenerateCase(const GenerationRequest &request, const GenerationPolicy &policy);

// Whether Inductor's CPU template should pick flash decoding for the case's first call: static
// shapes, Q_LEN 1, PARTITION_SIZE (kernel_options, default 128) a multiple of the KV block size,
// and KV_LEN / B >= max(2 * PARTITION_SIZE, 512) (torch 2.15's cpp_flex_attention_template.py).
bool FlashDecodingExpected(const corpus::Case &c);

// The case JSON without what legitimately varies between runs of the same generator (the
// command line and the tool's build); its SHA-256 pins generation in the golden test.
std::string StableCaseHash(const corpus::Case &c);

// Feature counts over many generated cases, with every option of the policy listed even when
// it never came up (a zero there is a generator bug or a policy that turned it off).
std::map<std::string, int> CountFeatures(const GenerationPolicy &policy, std::uint64_t seed,
                                         std::uint64_t count);

} // namespace fuzzer::generate
