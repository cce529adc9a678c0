#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace corpus {

// The Inductor knobs that shape the generated text, each set explicitly for every case. Their
// names, types, defaults and how they are applied live in one table (InductorKnobTable); this
// struct is only their storage.
struct InductorKnobs {
  int cpp_threads = 1;
  std::optional<int> cpp_simdlen; // none: Inductor picks from the CPU
  bool cpp_wrapper = false;
  bool dynamic = false;
  bool max_autotune = false;
  bool freezing = false;
  bool enable_loop_tail_vec = true;
  bool dynamic_threads = false;
  bool operator==(const InductorKnobs &) const = default;
};

enum class KnobType { kBool, kInt, kOptionalInt };
enum class KnobTarget {
  kInductorConfig,  // a torch._inductor.config entry, patched around the compile
  kCompileArgument, // an argument of torch.compile (dynamic=)
};

// One knob: how a case names it, its type, where its value lives, how it reaches torch, and
// how the generator's policy draws it.
struct KnobSpec {
  std::string_view name; // in the case's "inductor" object, and the config key when patched
  KnobType type;
  KnobTarget target;
  bool required; // cases written before the knob existed may leave it out
  bool InductorKnobs::*flag = nullptr;
  int InductorKnobs::*number = nullptr;
  std::optional<int> InductorKnobs::*optional_number = nullptr;
  // Policy: a weighted category named `name` for numbers; for a flag, the probability that
  // the generator flips it from its default.
  std::string_view policy_probability = "";
};

// Every knob, in the order cases store them and the generator draws them.
const std::vector<KnobSpec> &InductorKnobTable();

// Settings every case gets whatever it says, so that what Inductor writes depends on the case
// alone: one compile thread, no caches, no precompiled headers.
const nlohmann::json &FixedInductorConfig();

// The complete torch._inductor.config patch for a case: its knobs, then the fixed settings.
// The worker applies exactly this, and the repro script prints and applies it.
nlohmann::json InductorConfig(const InductorKnobs &knobs);

nlohmann::json KnobsToJson(const InductorKnobs &knobs);

} // namespace corpus
