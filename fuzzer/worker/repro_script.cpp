#include "fuzzer/worker/repro_script.h"

#include "fuzzer/worker/worker_python.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace fuzzer::worker {
namespace {

using nlohmann::json;

// The worker modules the script carries, in the order they must run. None needs its package
// (oracles' imports of compat and comparisons fall back to the pasted text), so they are pasted
// one after the other.
constexpr std::string_view kOracleModules[] = {"compat", "exceptions", "comparisons", "oracles"};

constexpr std::size_t kLineWidth = 100;

// The order a reader wants a case in: what it is, its functions, then its shapes. Other keys
// follow in JSON's order.
constexpr std::string_view kKeyOrder[] = {
    "name",      "api",    "mask_mod", "score_mod", "source",
    "tensors",   "dtype",  "shape",    "values",    "create_block_mask",
    "attention", "B",      "H",        "Hq",        "Hkv",
    "Q_LEN",     "KV_LEN", "E",        "Ev",        "BLOCK_SIZE"};

std::vector<std::string> KeysInReadingOrder(const json &object) {
  std::vector<std::string> keys;
  for (const auto key : kKeyOrder)
    if (object.contains(key))
      keys.emplace_back(key);
  for (const auto &[key, value] : object.items())
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(key);
  return keys;
}

// A string literal for Python source that reads as the source itself where it can.
std::string SourceLiteral(const std::string &source) {
  const bool plain = source.find('\\') == std::string::npos &&
                     source.find("'''") == std::string::npos &&
                     (source.empty() || source.back() != '\'');
  return plain ? "'''\\\n" + source + "'''" : json(source).dump();
}

// JSON as a Python literal, laid out for reading: whatever fits on its line stays on it.
// `names` replaces the values at some JSON pointers by Python names defined above it.
class PythonLiteral {
public:
  explicit PythonLiteral(std::map<std::string, std::string> names) : names_(std::move(names)) {}

  // `indent` is the indentation of the line the value starts on, `column` where it starts.
  std::string Render(const json &value, const std::string &pointer, std::size_t indent,
                     std::size_t column) const {
    const std::string inline_form = Inline(value, pointer);
    if (column + inline_form.size() <= kLineWidth || !value.is_structured() ||
        names_.contains(pointer))
      return inline_form;
    const std::string inner(indent + 4, ' ');
    std::string out;
    if (value.is_object()) {
      out = "{\n";
      for (const auto &key : KeysInReadingOrder(value)) {
        const std::string prefix = inner + json(key).dump() + ": ";
        out += prefix + Render(value[key], pointer + "/" + key, indent + 4, prefix.size()) + ",\n";
      }
      return out + std::string(indent, ' ') + "}";
    }
    if (std::none_of(value.begin(), value.end(), [](const json &v) { return v.is_structured(); }))
      return WrappedScalars(value, pointer, indent);
    out = "[\n";
    for (std::size_t i = 0; i < value.size(); ++i)
      out += inner + Render(value[i], pointer + "/" + std::to_string(i), indent + 4, inner.size()) +
             ",\n";
    return out + std::string(indent, ' ') + "]";
  }

private:
  std::string Inline(const json &value, const std::string &pointer) const {
    if (const auto name = names_.find(pointer); name != names_.end())
      return name->second;
    switch (value.type()) {
    case json::value_t::null:
      return "None";
    case json::value_t::boolean:
      return value.get<bool>() ? "True" : "False";
    case json::value_t::object: {
      std::string out;
      for (const auto &key : KeysInReadingOrder(value))
        out += (out.empty() ? "" : ", ") + json(key).dump() + ": " +
               Inline(value[key], pointer + "/" + key);
      return "{" + out + "}";
    }
    case json::value_t::array: {
      std::string out;
      for (std::size_t i = 0; i < value.size(); ++i)
        out += (i ? ", " : "") + Inline(value[i], pointer + "/" + std::to_string(i));
      return "[" + out + "]";
    }
    default: // numbers and strings are spelt the same in JSON and Python
      return value.dump();
    }
  }

  // A long list of numbers (a captured table), filled line by line.
  std::string WrappedScalars(const json &values, const std::string &pointer,
                             std::size_t indent) const {
    const std::string inner(indent + 4, ' ');
    std::string out = "[\n", line;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string item = Inline(values[i], pointer + "/" + std::to_string(i)) + ",";
      if (!line.empty() && inner.size() + line.size() + 1 + item.size() > kLineWidth) {
        out += inner + line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + item;
    }
    if (!line.empty())
      out += inner + line + "\n";
    return out + std::string(indent, ' ') + "]";
  }

  std::map<std::string, std::string> names_;
};

// What the script runs: the same steps, in the same order, as the worker's cases.run_case.
constexpr std::string_view kMain = R"PY(
def main():
    print("torch", torch.__version__)
    for key, value in INDUCTOR_CONFIG.items():
        print(f"inductor_config.{key} = {value!r}")
    if CASE.get("compile_with") == AOTI:
        print("AOTInductor: torch.export.export, torch._inductor.aoti_compile_and_package, "
              "aoti_load_package")
    else:
        print(f"torch.compile(dynamic={DYNAMIC!r})")
    expected = CASE["expect"]["raises"]
    calls = call_count(CASE)
    # Each call's eager reference on its own (eager flex_attention compiles internally), then
    # the calls of the one compiled function in sequence, as a program makes them.
    apis, eagers = [], []
    for index in range(calls):
        torch._dynamo.reset()
        phase = "define"
        try:
            apis.append(Api(CASE, build_namespace(CASE)) if not apis else apis[0].next_call(index))
            phase = "inputs"
            apis[-1].make_inputs()
            phase = "contract"  # a case that breaks a contract of the API is no repro
            apis[-1].check_contracts()
            phase = "eager"
            eagers.append(apis[-1].run_eager())
        except Exception as error:
            if not expected or phase != "eager":
                traceback.print_exc()
                print(f"INVALID CASE: call {index + 1} failed in phase {phase!r}, before "
                      "torch.compile ran")
                return 2
            print(f"eager raised, as the case expects ({expected}): {type(error).__name__}: {error}")
            eagers.append(None)
    torch._dynamo.reset()
    mismatches = []
    for index, (api, eager) in enumerate(zip(apis, eagers)):
        if calls > 1:
            change = CASE["calls"][index - 1] if index else "the case as it is"
            print(f"call {index + 1} of {calls}: {change}")
        api.compiled = apis[0].compiled
        try:
            compiled = api.run_compiled(INDUCTOR_CONFIG, DYNAMIC)
        except Exception as error:
            if expected and classify_exception(describe_exception(error)) == expected:
                print(f"PASS: torch.compile raised, as the case expects ({expected}): {error}")
                return 0
            raise
        if eager is None:
            print(f"PASS: torch.compile did not raise the {expected} exception eager raised")
            return 0
        plant = os.environ.get(TEST_PLANT_VARIABLE)
        if plant:
            print(f"test plant {plant!r}: the compiled result is corrupted on purpose")
            compiled = plant_difference(CASE["api"], compiled, plant)
        found, details = api.compare(eager, compiled)
        for key, value in details.items():
            print(f"{key}: {value}")
        for mismatch in found:
            if index:
                mismatch["field"] = f"call{index}.{mismatch['field']}"
        mismatches += found
    if mismatches:
        print(f"MISMATCH between eager and compiled ({len(mismatches)}):")
        for mismatch in mismatches:
            print("   ", mismatch)
        return 1
    print("PASS: eager and compiled agree")
    return 0
)PY";

} // namespace

std::string EmitPythonScript(const corpus::Case &c) {
  json case_json = corpus::CaseToJson(c);
  // The settings are INDUCTOR_CONFIG and DYNAMIC, printed and applied as they are; the
  // provenance is in the header.
  for (const char *key : {"inductor", "provenance", "format_version"})
    case_json.erase(key);
  std::map<std::string, std::string> names;
  std::string sources;
  for (const auto &[key, variable] :
       {std::pair{"mask_mod", "MASK_MOD_SOURCE"}, std::pair{"score_mod", "SCORE_MOD_SOURCE"}}) {
    const auto &function = std::string(key) == "mask_mod" ? c.mask_mod : c.score_mod;
    if (!function)
      continue;
    names[fmt::format("/{}/source", key)] = variable;
    sources += fmt::format("{} = {}\n\n", variable, SourceLiteral(function->source));
  }

  std::string script = fmt::format(
      "#!/usr/bin/env python3\n"
      "# inductor-fuzz case {name}: a standalone reproducer for the Python that has torch.\n"
      "# It runs the case eagerly and through {path} exactly as inductor-fuzz's worker\n"
      "# does, and compares the two with the worker's own oracle code (embedded at the end):\n"
      "# it prints every mismatch and exits 1, or prints PASS and exits 0.\n"
      "# Expected to raise: {raises}.\n"
      "# provenance: {provenance}\n"
      "import os\n"
      "import sys\n"
      "import traceback\n\n"
      "import torch\n\n"
      "# The case. Its functions are defined from their source in a namespace that holds torch,\n"
      "# and_masks, or_masks and the captured tensors, as the worker defines them.\n"
      "{sources}"
      "CASE = {case}\n\n"
      "# Inductor's complete configuration for the case, patched around torch.compile.\n"
      "INDUCTOR_CONFIG = {config}\n"
      "DYNAMIC = {dynamic}  # torch.compile(dynamic=...)\n\n",
      fmt::arg("name", c.name),
      fmt::arg("path", c.compile_with == corpus::kAoti ? "AOTInductor" : "torch.compile"),
      fmt::arg("raises", c.expect_raises.empty() ? "no" : c.expect_raises),
      fmt::arg("provenance", c.provenance.dump()), fmt::arg("sources", sources),
      fmt::arg("case", PythonLiteral(names).Render(case_json, "", 0, 7)),
      fmt::arg("config", PythonLiteral({}).Render(corpus::InductorConfig(c), "", 0, 18)),
      fmt::arg("dynamic", corpus::DynamicArgument(c).is_null() ? "None"
                          : c.inductor.dynamic                 ? "True"
                                                               : "False"));
  script += kMain;
  script += "\n\n# " + std::string(96, '-') +
            "\n# inductor-fuzz's oracle code, verbatim from its worker (package "
            "inductor_fuzz_worker):\n# the comparison above is the one the fuzzer ran.\n# " +
            std::string(96, '-') + "\n";
  for (const auto module : kOracleModules) {
    const std::string name = fmt::format("{}.{}", kWorkerPackage, module);
    script += fmt::format("\n# ---- {}/{}.py ----\n\n", kWorkerPackage, module);
    script += WorkerModuleSource(name);
  }
  script += "\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n";
  return script;
}

} // namespace fuzzer::worker
