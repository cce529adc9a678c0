#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
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
  // Knobs the case leaves to Inductor (format version 2): never patched, whatever the field
  // above holds; the worker reports the value that was in force.
  std::set<std::string, std::less<>> defaulted;
  // The knobs the table marks `optional`: only those a case sets, by name (a bool, an integer or
  // a string, as the table types them). One absent here is left to Inductor in every format
  // version, so that adding such a knob changes no stored case.
  std::map<std::string, nlohmann::json, std::less<>> optional;
  bool IsDefaulted(std::string_view knob) const { return defaulted.contains(knob); }
  bool operator==(const InductorKnobs &) const = default;
};

enum class KnobType { kBool, kInt, kOptionalInt, kString };
enum class KnobTarget {
  kInductorConfig,  // a torch._inductor.config entry, patched around the compile
  kCompileArgument, // an argument of torch.compile (dynamic=)
  kEnvironment,     // an environment variable set around the compile (the worker's and repro's)
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
  // Policy: a number is drawn from the weighted category named `name`, whose default
  // weights are `policy_weights`; a flag is flipped from its default with the probability
  // named `policy_probability`, `policy_default_probability` unless a policy overrides it.
  std::vector<std::pair<std::string_view, double>> policy_weights = {};
  std::string_view policy_probability = "";
  double policy_default_probability = 0;
  // An optional knob lives in InductorKnobs::optional and is patched only when a case sets it;
  // the generator sets it with its probability, to a value drawn from `policy_weights` (whose
  // options are its values: "true"/"false", integers, or the strings a kString knob takes).
  bool optional = false;
};

// The value of an optional knob as a case stores it, from one of its policy options' text.
nlohmann::json OptionalKnobValue(const KnobSpec &knob, std::string_view option);

// Every knob, in the order cases store them and the generator draws them.
const std::vector<KnobSpec> &InductorKnobTable();

// Settings every case gets whatever it says, so that what Inductor writes depends on the case
// alone: one compile thread, no caches, no precompiled headers.
const nlohmann::json &FixedInductorConfig();

// The complete torch._inductor.config patch for a case: its knobs, then the fixed settings.
// The worker applies exactly this, and the repro script prints and applies it.
nlohmann::json InductorConfig(const InductorKnobs &knobs);

// The knobs as a case stores them; a defaulted knob is left out.
nlohmann::json KnobsToJson(const InductorKnobs &knobs);

} // namespace corpus
