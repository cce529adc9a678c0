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
      // Optional knobs: patched only when a case sets them (see KnobSpec::optional).
      {.name = "cpp.min_chunk_size",
       .type = KnobType::kInt,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"1", 1}, {"64", 1}, {"4096", 1}, {"1000000", 1}},
       .policy_probability = "p_knob_min_chunk_size",
       .policy_default_probability = 0.04,
       .optional = true},
      {.name = "cpp.max_horizontal_fusion_size",
       .type = KnobType::kInt,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"1", 1}, {"2", 1}, {"64", 1}},
       .policy_probability = "p_knob_max_horizontal_fusion_size",
       .policy_default_probability = 0.04,
       .optional = true},
      {.name = "cpp.enable_tiling_heuristics",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}},
       .policy_probability = "p_knob_tiling_heuristics_off",
       .policy_default_probability = 0.04,
       .optional = true},
      {.name = "cpp.enable_unsafe_math_opt_flag",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"true", 1}},
       .policy_probability = "p_knob_unsafe_math_opt",
       .policy_default_probability = 0.025,
       .optional = true},
      {.name = "cpp.enable_floating_point_contract_flag",
       .type = KnobType::kString,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"off", 1}, {"on", 1}, {"fast", 1}},
       .policy_probability = "p_knob_floating_point_contract",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "cpp.use_decompose_tanh",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"true", 1}},
       .policy_probability = "p_knob_decompose_tanh",
       .policy_default_probability = 0.04,
       .optional = true},
      {.name = "cpp.descriptive_names",
       .type = KnobType::kString,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"torch", 1}, {"inductor_node", 1}},
       .policy_probability = "p_knob_descriptive_names",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "cpp.vec_isa_ok",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}, {"true", 1}},
       .policy_probability = "p_knob_vec_isa_ok",
       .policy_default_probability = 0.025,
       .optional = true},
      {.name = "cpp.use_constexpr_for_int_array",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}},
       .policy_probability = "p_knob_constexpr_int_array_off",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "cpp.force_inline_kernel",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"true", 1}},
       .policy_probability = "p_knob_force_inline_kernel",
       .policy_default_probability = 0.025,
       .optional = true},
      {.name = "max_fusion_size",
       .type = KnobType::kInt,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"1", 1}, {"8", 1}, {"256", 1}},
       .policy_probability = "p_knob_max_fusion_size",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "aggressive_fusion",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"true", 1}},
       .policy_probability = "p_knob_aggressive_fusion",
       .policy_default_probability = 0.04,
       .optional = true},
      {.name = "epilogue_fusion",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}},
       .policy_probability = "p_knob_epilogue_fusion_off",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "split_reductions",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}},
       .policy_probability = "p_knob_split_reductions_off",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "unroll_reductions_threshold",
       .type = KnobType::kInt,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"1", 1}, {"2", 1}, {"64", 1}},
       .policy_probability = "p_knob_unroll_reductions_threshold",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "size_asserts",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}},
       .policy_probability = "p_knob_size_asserts_off",
       .policy_default_probability = 0.03,
       .optional = true},
      {.name = "loop_ordering_after_fusion",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}, {"true", 1}},
       .policy_probability = "p_knob_loop_ordering_after_fusion",
       .policy_default_probability = 0.04,
       .optional = true},
      {.name = "comprehensive_padding",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"false", 1}},
       .policy_probability = "p_knob_comprehensive_padding_off",
       .policy_default_probability = 0.03,
       .optional = true},
      // Off (Inductor's default), a float16/bfloat16 rounding between two fused ops is elided:
      // documented, not a bug. The detour mutation sets it when it rounds a score that way.
      {.name = "emulate_precision_casts",
       .type = KnobType::kBool,
       .target = KnobTarget::kInductorConfig,
       .required = false,
       .policy_weights = {{"true", 1}},
       .policy_probability = "p_knob_emulate_precision_casts",
       .policy_default_probability = 0.03,
       .optional = true},
      // The vector ISA Inductor targets when cpp.simdlen is left to it (cpu_vec_isa.py's
      // pick_vec_isa reads it): "default" is scalar code only. Set around the compile, never
      // for eager (ATen picks its own kernels once per process). Drawn by op programs only.
      {.name = "ATEN_CPU_CAPABILITY",
       .type = KnobType::kString,
       .target = KnobTarget::kEnvironment,
       .required = false,
       .policy_weights = {{"default", 1}, {"avx2", 2}, {"avx512", 2}},
       .policy_probability = "p_knob_cpu_capability",
       .policy_default_probability = 0.3,
       .optional = true},
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
  if (knob.optional) {
    const auto found = knobs.optional.find(knob.name);
    return found == knobs.optional.end() ? nlohmann::json() : found->second;
  }
  switch (knob.type) {
  case KnobType::kBool:
    return knobs.*knob.flag;
  case KnobType::kInt:
    return knobs.*knob.number;
  case KnobType::kOptionalInt:
    return knobs.*knob.optional_number ? nlohmann::json(*(knobs.*knob.optional_number))
                                       : nlohmann::json(nullptr);
  case KnobType::kString:
    break;
  }
  return nullptr;
}

// Whether the case gives the knob a value to patch.
bool IsSet(const KnobSpec &knob, const InductorKnobs &knobs) {
  return knob.optional ? knobs.optional.contains(knob.name) : !knobs.IsDefaulted(knob.name);
}

} // namespace

nlohmann::json OptionalKnobValue(const KnobSpec &knob, std::string_view option) {
  switch (knob.type) {
  case KnobType::kBool:
    return option == "true";
  case KnobType::kInt:
  case KnobType::kOptionalInt:
    return std::stoll(std::string(option));
  case KnobType::kString:
    break;
  }
  return std::string(option);
}

nlohmann::json InductorConfig(const InductorKnobs &knobs) {
  nlohmann::json config = nlohmann::json::object();
  for (const auto &knob : InductorKnobTable())
    if (knob.target == KnobTarget::kInductorConfig && IsSet(knob, knobs))
      config[std::string(knob.name)] = ValueOf(knob, knobs);
  for (const auto &[key, value] : FixedInductorConfig().items())
    config[key] = value;
  return config;
}

nlohmann::json KnobsToJson(const InductorKnobs &knobs) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto &knob : InductorKnobTable())
    if (IsSet(knob, knobs))
      out[std::string(knob.name)] = ValueOf(knob, knobs);
  return out;
}

} // namespace corpus
