#include "fuzzer/matrix/kernel_probes.h"

#include <fmt/format.h>

#include <regex>
#include <set>
#include <sstream>

namespace fuzzer::matrix {
namespace {

// Written into the probed TU before the function that calls the kernels. Its record, all
// little-endian: "IFZP", u32 site, u32 argument, u32 kernel name length, the name, u32 buffer
// name length, the name, i32 dtype (c10::ScalarType), i64 dim, dim x i64 sizes, dim x i64
// strides, u64 byte count, the bytes from the data pointer over the strided extent.
constexpr std::string_view kProbeFunction = R"IFZPROBE(
// inductor-fuzz kernel probe (a replay build only): records a buffer a kernel call wrote.
#include <cstdio>
#include <cstdlib>
#include <cstring>
static void inductor_fuzz_probe(unsigned site, const char* kernel, unsigned argument,
                                const char* buffer, AtenTensorHandle tensor) {
  const char* path = std::getenv("INDUCTOR_FUZZ_KERNEL_PROBES");
  if (path == nullptr || tensor == nullptr) return;
  void* data = nullptr;
  int64_t dim = 0, numel = 0;
  int64_t* sizes = nullptr;
  int64_t* strides = nullptr;
  int32_t dtype = -1;
  if (aoti_torch_get_data_ptr(tensor, &data) || aoti_torch_get_dim(tensor, &dim) ||
      aoti_torch_get_sizes(tensor, &sizes) || aoti_torch_get_strides(tensor, &strides) ||
      aoti_torch_get_dtype(tensor, &dtype) || aoti_torch_get_numel(tensor, &numel))
    return;
  uint64_t itemsize = 0;
  switch (dtype) {
  case 0: case 1: case 11: itemsize = 1; break;  // uint8, int8, bool
  case 2: case 5: case 15: itemsize = 2; break;  // int16, float16, bfloat16
  case 3: case 6: itemsize = 4; break;           // int32, float32
  case 4: case 7: itemsize = 8; break;           // int64, float64
  default: itemsize = 0;                         // not compared
  }
  uint64_t extent = numel > 0 ? 1 : 0;
  for (int64_t d = 0; numel > 0 && d < dim; ++d)
    extent += static_cast<uint64_t>(sizes[d] - 1) * static_cast<uint64_t>(strides[d] < 0 ? -strides[d] : strides[d]);
  const uint64_t bytes = extent * itemsize;
  FILE* out = std::fopen(path, "ab");
  if (out == nullptr) return;
  const unsigned kernel_length = static_cast<unsigned>(std::strlen(kernel));
  const unsigned buffer_length = static_cast<unsigned>(std::strlen(buffer));
  std::fwrite("IFZP", 1, 4, out);
  std::fwrite(&site, 4, 1, out);
  std::fwrite(&argument, 4, 1, out);
  std::fwrite(&kernel_length, 4, 1, out);
  std::fwrite(kernel, 1, kernel_length, out);
  std::fwrite(&buffer_length, 4, 1, out);
  std::fwrite(buffer, 1, buffer_length, out);
  std::fwrite(&dtype, 4, 1, out);
  std::fwrite(&dim, 8, 1, out);
  if (dim > 0) {
    std::fwrite(sizes, 8, static_cast<size_t>(dim), out);
    std::fwrite(strides, 8, static_cast<size_t>(dim), out);
  }
  std::fwrite(&bytes, 8, 1, out);
  if (bytes > 0) std::fwrite(data, 1, bytes, out);
  std::fclose(out);
}
)IFZPROBE";

std::vector<std::string> SplitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(std::move(line));
  return lines;
}

// The top-level arguments of a call's text from its opening parenthesis.
std::vector<std::string> Arguments(const std::string &call, std::size_t open) {
  std::vector<std::string> arguments;
  int depth = 0;
  std::string current;
  for (std::size_t i = open; i < call.size(); ++i) {
    const char c = call[i];
    if (c == '(' || c == '[' || c == '{') {
      if (depth++ == 0)
        continue;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        arguments.push_back(current);
        break;
      }
    } else if (c == ',' && depth == 1) {
      arguments.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  for (auto &argument : arguments) {
    const auto first = argument.find_first_not_of(" \t\n");
    const auto last = argument.find_last_not_of(" \t\n");
    argument = first == std::string::npos ? "" : argument.substr(first, last - first + 1);
  }
  return arguments;
}

} // namespace

std::optional<ProbedSource> ProbeKernelCalls(const std::string &source) {
  static const std::regex declaration(R"(extern\s+"C"\s+void\s+(\w+)\s*\()");
  static const std::regex written(
      R"(^\(\s*(?!const\b)[\w:<> ]+\*\s*\)\s*\(\s*(\w+)\.data_ptr\(\)\s*\)$)");
  std::set<std::string> kernels;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), declaration);
       it != std::sregex_iterator(); ++it)
    kernels.insert((*it)[1]);
  if (kernels.empty())
    return std::nullopt;

  const std::vector<std::string> lines = SplitLines(source);
  ProbedSource probed;
  std::vector<std::pair<std::size_t, std::string>> insert_after; // line index, text
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string &line = lines[i];
    const auto start = line.find_first_not_of(" \t");
    if (start == 0 || start == std::string::npos) // calls are inside a body, indented
      continue;
    const auto open = line.find('(', start);
    if (open == std::string::npos || !kernels.contains(line.substr(start, open - start)))
      continue;
    std::string call = line.substr(start);
    std::size_t end = i;
    const auto balanced = [](const std::string &text) {
      int depth = 0;
      for (char c : text)
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      return depth == 0 && text.find(';') != std::string::npos;
    };
    while (!balanced(call) && end + 1 < lines.size())
      call += "\n" + lines[++end];
    ProbeSite site{.site = static_cast<int>(probed.sites.size()),
                   .kernel = line.substr(start, open - start),
                   .line = static_cast<int>(i + 1),
                   .outputs = {}};
    const auto arguments = Arguments(call, open - start);
    for (std::size_t position = 0; position < arguments.size(); ++position) {
      std::smatch match;
      if (std::regex_match(arguments[position], match, written))
        site.outputs.emplace_back(static_cast<int>(position), match[1]);
    }
    if (site.outputs.empty())
      continue;
    std::string probes;
    for (const auto &[position, buffer] : site.outputs)
      probes +=
          fmt::format("{}inductor_fuzz_probe({}, \"{}\", {}, \"{}\", {}.get());\n",
                      line.substr(0, start), site.site, site.kernel, position, buffer, buffer);
    insert_after.emplace_back(end, std::move(probes));
    probed.sites.push_back(std::move(site));
    i = end;
  }
  if (probed.sites.empty())
    return std::nullopt;

  // The probe goes before the definition that holds the first call: a line at column 0.
  std::size_t definition = probed.sites.front().line - 1;
  while (definition > 0) {
    const std::string &line = lines[definition];
    if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0])) &&
        std::string_view("){}#/").find(line[0]) == std::string_view::npos)
      break;
    --definition;
  }
  std::size_t next_insert = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i == definition)
      probed.text += kProbeFunction.substr(1);
    probed.text += lines[i] + "\n";
    if (next_insert < insert_after.size() && insert_after[next_insert].first == i)
      probed.text += insert_after[next_insert++].second;
  }
  return probed;
}

} // namespace fuzzer::matrix
