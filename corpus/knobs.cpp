#include "corpus/knobs.h"

namespace corpus {

const std::vector<KnobSpec> &InductorKnobTable() {
  using K = InductorKnobs;
  static const std::vector<KnobSpec> table = {
      {.name = "cpp.threads",
       .type = KnobType::kInt,
       .target = KnobTarget::kInductorConfig,
       .required = true,
       .number = &K::cpp_threads,
       .policy_weights = {{"1", 1}, {"2", 1}, {"4", 1}, {"8", 2}, {"16", 1}}},
      {.name = "cpp.simdlen",
       .type = KnobType::kOptionalInt,
       .target = KnobTarget::kInductorConfig,
       .required = true,
       .optional_number = &K::cpp_simdlen,
       .policy_weights = {{"auto", 2}, {"1", 1}, {"256", 2}, {"512", 2}}},
      {.name = "cpp_wrapper",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = true,
       .flag = &K::cpp_wrapper,
       .policy_probability = "p_cpp_wrapper",
       .policy_default_probability = 0.2},
      {.name = "dynamic",
       .type = KnobType::kBool,
       .target = KnobTarget::kCompileArgument,
       .required = true,
       .flag = &K::dynamic,
       .policy_probability = "p_dynamic",
       .policy_default_probability = 0.2},
      {.name = "max_autotune",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .flag = &K::max_autotune,
       .policy_probability = "p_max_autotune",
       .policy_default_probability = 0.1},
      {.name = "freezing",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .flag = &K::freezing,
       .policy_probability = "p_freezing",
       .policy_default_probability = 0.1},
      {.name = "cpp.enable_loop_tail_vec",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .flag = &K::enable_loop_tail_vec,
       .policy_probability = "p_loop_tail_vec_off",
       .policy_default_probability = 0.15},
      {.name = "cpp.dynamic_threads",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .flag = &K::dynamic_threads,
       .policy_probability = "p_dynamic_threads",
       .policy_default_probability = 0.1},
  };
  return table;
}

const nlohmann::json &FixedInductorConfig() {
  static const nlohmann::json fixed = {
      {"compile_threads", 1},
      {"force_disable_caches", true},
      {"fx_graph_cache", false},
      {"fx_graph_remote_cache", false},
      {"autotune_local_cache", false},
      {"autotune_remote_cache", false},
      {"cpp_cache_precompile_headers", false},
      {"aot_inductor.precompile_headers", false},
  };
  return fixed;
}

namespace {

nlohmann::json ValueOf(const KnobSpec &knob, const InductorKnobs &knobs) {
  switch (knob.type) {
  case KnobType::kBool:
    return knobs.*knob.flag;
  case KnobType::kInt:
    return knobs.*knob.number;
  case KnobType::kOptionalInt:
    return knobs.*knob.optional_number ? nlohmann::json(*(knobs.*knob.optional_number))
                                       : nlohmann::json(nullptr);
  }
  return nullptr;
}

} // namespace

nlohmann::json InductorConfig(const InductorKnobs &knobs) {
  nlohmann::json config = nlohmann::json::object();
  for (const auto &knob : InductorKnobTable())
    if (knob.target == KnobTarget::kInductorConfig && !knobs.IsDefaulted(knob.name))
      config[std::string(knob.name)] = ValueOf(knob, knobs);
  for (const auto &[key, value] : FixedInductorConfig().items())
    config[key] = value;
  return config;
}

nlohmann::json KnobsToJson(const InductorKnobs &knobs) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto &knob : InductorKnobTable())
    if (!knobs.IsDefaulted(knob.name))
      out[std::string(knob.name)] = ValueOf(knob, knobs);
  return out;
}

} // namespace corpus
