#include "fuzzer/worker/repro_script.h"

#include "fuzzer/worker/templates.h"
#include "fuzzer/worker/worker_python.h"
#include "support/templates.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

namespace fuzzer::worker {
namespace {

using nlohmann::json;

// The module whose names the script calls (Api, build_namespace, call_count, AOTI,
// classify_exception, plant_difference...). ReproScriptModules pastes what it imports first.
constexpr std::string_view kScriptRoot = "oracles";

// The modules of the package `source` imports: the NAME of each line `from .NAME import ...`
// (none of the package's modules imports in another way), in the order of the lines.
std::vector<std::string> ImportedModules(std::string_view source) {
  std::vector<std::string> modules;
  while (!source.empty()) {
    const auto end = source.find('\n');
    std::string_view line = source.substr(0, end);
    source = end == std::string_view::npos ? std::string_view() : source.substr(end + 1);
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    constexpr std::string_view kFrom = "from .";
    if (!line.starts_with(kFrom))
      continue;
    line.remove_prefix(kFrom.size());
    const auto name_end = line.find(' ');
    if (name_end != 0 && name_end != std::string_view::npos &&
        line.substr(name_end).starts_with(" import"))
      modules.emplace_back(line.substr(0, name_end));
  }
  return modules;
}

// Depth first from `module`: what it imports (in its order), then the module itself.
void AppendAfterItsImports(const std::string &module, std::vector<std::string> &order,
                           std::vector<std::string> &visiting) {
  if (std::find(order.begin(), order.end(), module) != order.end())
    return;
  if (std::find(visiting.begin(), visiting.end(), module) != visiting.end())
    throw std::logic_error(fmt::format("the worker's modules {} and {} import each other: the "
                                       "repro script cannot paste one before the other",
                                       visiting.back(), module));
  visiting.push_back(module);
  for (const auto &imported :
       ImportedModules(WorkerModuleSource(fmt::format("{}.{}", kWorkerPackage, module))))
    AppendAfterItsImports(imported, order, visiting);
  visiting.pop_back();
  order.push_back(module);
}

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

} // namespace

std::vector<std::string> ReproScriptModules() {
  std::vector<std::string> order, visiting;
  AppendAfterItsImports(std::string(kScriptRoot), order, visiting);
  return order;
}

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

  std::string oracle_code;
  for (const auto &module : ReproScriptModules()) {
    oracle_code += fmt::format("\n# ---- {}/{}.py ----\n\n", kWorkerPackage, module);
    oracle_code += WorkerModuleSource(fmt::format("{}.{}", kWorkerPackage, module));
  }
  return support::FillTemplate(
      Template("case_repro.py.tmpl"),
      {{"NAME", c.name},
       {"PATH", c.compile_with == corpus::kAoti ? "AOTInductor" : "torch.compile"},
       {"RAISES", c.expect_raises.empty() ? "no" : c.expect_raises},
       {"PROVENANCE", c.provenance.dump()},
       {"SOURCES", sources},
       {"CASE", PythonLiteral(names).Render(case_json, "", 0, 7)},
       {"CONFIG", PythonLiteral({}).Render(corpus::InductorConfig(c), "", 0, 18)},
       {"DYNAMIC", corpus::DynamicArgument(c).is_null() ? "None"
                   : c.inductor.dynamic                 ? "True"
                                                        : "False"},
       {"ORACLE_CODE", oracle_code}});
}

} // namespace fuzzer::worker
