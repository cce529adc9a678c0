#include "fuzzer/campaign/case_source.h"

#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/mutator.h"
#include "fuzzer/generate/random.h"
#include "fuzzer/worker/worker_python.h"
#include "support/errors.h"

#include <fmt/format.h>

namespace fuzzer::campaign {
namespace {

// The body a fault-injection switch puts into a case's mask_mod (tests only).
std::string FaultBody(const std::string &fault) {
  if (fault == "segfault")
    return "    import ctypes\n    ctypes.string_at(0)\n    return q_idx >= kv_idx\n";
  if (fault == "hang")
    return "    import time\n    time.sleep(100000)\n    return q_idx >= kv_idx\n";
  if (fault == "allocate")
    return "    hoard = []\n    while True:\n        hoard.append(bytearray(64 << 20))\n";
  throw support::InputError(
      fmt::format("fault '{}' is not one of segfault, hang, allocate, disk-full", fault));
}

} // namespace

corpus::Case CaseSource::Next(std::uint64_t index) const {
  corpus::Case c = Chosen(index);
  const auto &faults = options_.generate.fault_injection;
  // disk-full is the store stage's fault, not the case's.
  if (const auto fault = faults.find(index);
      fault != faults.end() && fault->second != "disk-full" && c.mask_mod)
    c.mask_mod->source =
        "def " + c.mask_mod->name + "(b, h, q_idx, kv_idx):\n" + FaultBody(fault->second);
  return c;
}

corpus::Case CaseSource::Generated(std::uint64_t index) const {
  return generate::GenerateCase({options_.seed, index, options_.command_line},
                                options_.generate.policy)
      .c;
}

corpus::Case CaseSource::Chosen(std::uint64_t index) const {
  const auto &policy = options_.generate.policy;
  generate::Random choice =
      generate::StreamOf(options_.seed, index, generate::RandomStream::kPoolChoice);
  if (!options_.generate.feedback || !options_.analysis.static_analysis ||
      !choice.Chance(mutation_share_.Share()))
    return Generated(index);
  auto parent = pool_.Pick(choice);
  if (!parent)
    return Generated(index);
  std::optional<PoolEntry> donor;
  if (!choice.Chance(policy.Number("p_fresh_donor")))
    donor = pool_.Pick(choice);
  // A fresh donor: the case the generator would make at a far index, outside the sequence.
  const std::uint64_t far_index = index | (1ull << 62);
  const corpus::Case donor_case = donor ? donor->c : Generated(far_index);
  try {
    auto mutated = generate::MutateCase(
        parent->c, donor_case,
        {.seed = options_.seed,
         .index = index,
         .command_line = options_.command_line,
         .parent_id = parent->id,
         .donor_id = donor ? donor->id : fmt::format("generated s{}-{}", options_.seed, far_index),
         .source_mutator =
             std::string(worker::WorkerModuleSource("inductor_fuzz_worker.mutate_source")),
         .python = paths_.venv / "bin" / "python"},
        policy);
    // A mutant the case reader refuses would run, be stored, and never replay: it is not made.
    corpus::CaseFromJson(corpus::CaseToJson(mutated.c));
    return std::move(mutated.c);
  } catch (const std::exception &error) {
    // A mutation that cannot be made costs this case its parent, not the campaign.
    progress_(fmt::format("fuzz: mutating {} for case {} failed ({}); generating it instead",
                          parent->id, index, error.what()),
              false);
    return Generated(index);
  }
}

} // namespace fuzzer::campaign
