#include "lib/run/devices.hpp"

#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "lib/core/error.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/gpu/gpu.hpp"

namespace aug {

std::unique_ptr<Backend> make_emulated_backend(int workers, int index) { return gpu::open_emulated_backend(index, workers); }

namespace {

// "N" after a prefix such as "cuda:", or -1.
int index_after(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) != 0 || text.size() <= prefix.size() || text.size() > prefix.size() + 3 ||
      text.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
    return -1;
  return std::atoi(text.c_str() + prefix.size());
}

// The canonical name of one GPU: "cuda:N" or "cuda-emulated:N".
std::string gpu_name(DeviceSpec::Kind kind, int index) {
  std::string name = kind == DeviceSpec::Kind::Cuda ? "cuda:" : "cuda-emulated:";
  name += std::to_string(index);
  return name;
}

}  // namespace

DeviceSpec parse_device(const std::string& text, const std::string& option) {
  DeviceSpec d;
  d.text = text;
  if (text == "cpu") d.kind = DeviceSpec::Kind::Cpu;
  else if (text == "auto") d.kind = DeviceSpec::Kind::Auto;
  else if (text == "cuda-emulated") d.kind = DeviceSpec::Kind::Emulated;
  else if (text == "cuda") d.kind = DeviceSpec::Kind::Cuda;
  else if (const int n = index_after(text, "cuda:"); n >= 0) {
    d.kind = DeviceSpec::Kind::Cuda;
    d.index = n;
  } else if (const int e = index_after(text, "cuda-emulated:"); e >= 0) {
    d.kind = DeviceSpec::Kind::Emulated;
    d.index = e;
  } else {
    throw UsageError(option + " " + text + ": expected cpu, auto, cuda, cuda:N, cuda-emulated or cuda-emulated:N");
  }
  return d;
}

std::vector<DeviceSpec> parse_devices(const std::string& text, const std::string& option) {
  const auto all = [&](DeviceSpec::Kind kind) {
    DeviceSpec d;
    d.kind = kind;
    d.all = true;
    d.text = text;
    return std::vector<DeviceSpec>{d};
  };
  if (text == "cuda:all") return all(DeviceSpec::Kind::Cuda);
  if (text == "cuda-emulated:all") return all(DeviceSpec::Kind::Emulated);
  if (text.find(',') == std::string::npos) return {parse_device(text, option)};

  std::vector<DeviceSpec> devices;
  std::map<std::string, std::string> named;  // canonical name -> as written
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const std::string where = option + " " + text + ": ";
    if (item.empty()) throw UsageError(where + "an empty entry; expected GPUs separated by commas, e.g. cuda:0,cuda:2");
    if (item == "cuda:all" || item == "cuda-emulated:all")
      throw UsageError(where + item + " already names every such GPU; give it alone");
    DeviceSpec d;
    try {
      d = parse_device(item);
    } catch (const UsageError&) {
      throw UsageError(where + item + " is not a GPU; a list takes cuda:N and cuda-emulated:N");
    }
    if (d.kind == DeviceSpec::Kind::Cpu || d.kind == DeviceSpec::Kind::Auto)
      throw UsageError(where + item + " cannot be in a list, which names GPUs only (cuda:N, cuda-emulated:N)");
    const std::string name = gpu_name(d.kind, d.index);
    const auto [it, fresh] = named.emplace(name, item);
    if (!fresh)
      throw UsageError(where + name + " is named twice" +
                       (it->second == item ? std::string() : " (as " + it->second + " and " + item + ")"));
    d.text = name;
    devices.push_back(d);
  }
  if (text.back() == ',') throw UsageError(option + " " + text + ": an empty entry after the last comma");
  return devices;
}

std::vector<DeviceSpec> expand_devices(const std::vector<DeviceSpec>& devices) {
  std::vector<DeviceSpec> out;
  for (const DeviceSpec& d : devices) {
    if (!d.all) {
      out.push_back(d);
      continue;
    }
    DeviceSpec one = d;
    one.all = false;
    if (d.kind == DeviceSpec::Kind::Emulated) {
      for (int i = 0; i < gpu::emulated_device_count(); ++i) {
        one.index = i;
        one.text = gpu_name(d.kind, i);
        out.push_back(one);
      }
      continue;
    }
    const gpu::Inventory inv = gpu::inventory();
    if (inv.devices.empty())
      throw DeviceError("--device " + d.text + ": there is no usable CUDA GPU (" + inv.why_none + "); use --device cpu");
    for (const auto& g : inv.devices) {
      one.index = g.index;
      one.text = gpu_name(d.kind, g.index);
      out.push_back(one);
    }
  }
  return out;
}

std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers) {
  switch (device.kind) {
    case DeviceSpec::Kind::Cpu: return make_cpu_backend(workers);
    case DeviceSpec::Kind::Emulated: return make_emulated_backend(workers, device.index);
    case DeviceSpec::Kind::Cuda: return gpu::open_backend(device.index, workers);
    case DeviceSpec::Kind::Auto: break;
  }
  const gpu::Inventory inv = gpu::inventory();
  if (!inv.devices.empty()) {
    // The first usable GPU by its CUDA index: the inventory leaves out GPUs too old for this
    // build, so the first entry need not be cuda:0.
    const gpu::DeviceInfo& first = inv.devices.front();
    spdlog::info("device auto: using cuda:{} ({})", first.index, first.name);
    return gpu::open_backend(first.index, workers);
  }
  spdlog::info("device auto: using the CPU ({})", inv.why_none);
  return make_cpu_backend(workers);
}

DeviceSet::DeviceSet(const std::vector<DeviceSpec>& devices, int workers) {
  const int n = static_cast<int>(devices.size());
  if (n == 0 || workers < n)
    throw std::logic_error("DeviceSet: " + std::to_string(workers) + " workers for " + std::to_string(n) + " devices");
  for (int i = 0; i < n; ++i) {
    if (devices[i].all) throw std::logic_error("DeviceSet: " + devices[i].text + " was not expanded");
    // The workers w with w % n == i.
    backends_.push_back(open_backend(devices[i], (workers - i + n - 1) / n));
  }
}

std::string DeviceSet::names() const {
  std::string s;
  for (const auto& b : backends_) {
    if (!s.empty()) s += ',';
    s += b->name();
  }
  return s;
}

}  // namespace aug
