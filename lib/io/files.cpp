#include "lib/io/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>

#include "lib/core/error.hpp"

namespace aug {

std::vector<std::uint8_t> read_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(std::string("cannot read: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError("cannot read: not a regular file");
  }
  std::vector<std::uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  std::uint8_t chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw InputError(std::string("cannot read: ") + std::strerror(err));
    }
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  ::close(fd);
  return bytes;
}

namespace {

bool write_all(int fd, const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void write_failed(const fs::path& path, int err) {
  throw InputError("cannot write " + path.string() + ": " + std::strerror(err));
}

// This machine's name as temporary names carry it: at most 32 letters, digits, '.' and '_'.
const std::string& host_tag() {
  static const std::string tag = [] {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || !name[0]) return std::string("unknown");
    std::string t(name);
    if (t.size() > 32) t.resize(32);  // the temporary's name must stay a valid file name
    for (char& c : t)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') c = '_';
    return t;
  }();
  return tag;
}

// A named temporary file renamed over `path` (file systems without O_TMPFILE, or replacing a file).
void write_via_rename(const fs::path& path, const void* data, std::size_t size) {
  const fs::path temp = temp_path_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) write_failed(path, errno);
  const bool ok = write_all(fd, data, size);
  const int err = errno;
  if (::close(fd) != 0 || !ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    const int e = ok ? errno : err;
    ::unlink(temp.c_str());
    write_failed(path, e);
  }
}

}  // namespace

fs::path temp_path_for(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  return dir / (std::string(kTempPrefix) + std::to_string(::getpid()) + "@" + host_tag() + "-" +
                std::to_string(counter++) + "-" + path.filename().string());
}

void write_file_atomic(const fs::path& path, const void* data, std::size_t size) {
  // An unnamed file in the target folder, given its name only once complete: nothing partial
  // is ever visible, and a killed run leaves nothing behind.
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code made;
  if (!fs::exists(dir, made)) fs::create_directories(dir, made);  // a failure shows in open() below
  const int fd = ::open(dir.c_str(), O_WRONLY | O_TMPFILE | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) return write_via_rename(path, data, size);
    write_failed(path, errno);
  }
  if (!write_all(fd, data, size)) {
    const int err = errno;
    ::close(fd);
    write_failed(path, err);
  }
  char self[64];
  std::snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  const int linked = ::linkat(AT_FDCWD, self, AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW);
  const int err = errno;
  ::close(fd);
  if (linked == 0) return;
  if (err == EEXIST || err == ENOENT) return write_via_rename(path, data, size);  // replacing, or no /proc
  write_failed(path, err);
}

bool temp_is_stale(const std::string& name, fs::file_time_type modified, fs::file_time_type now) {
  if (name.rfind(kTempPrefix, 0) != 0) return false;
  if (now - modified > kTempsLiveFor) return true;
  // ".augment-tmp-<pid>@<host>-<counter>-<name>"; other names (older versions): stale.
  const std::string rest = name.substr(std::strlen(kTempPrefix));
  const auto at = rest.find('@');
  if (at == std::string::npos || at == 0 || at > 10 || rest.find_first_not_of("0123456789") != at) return true;
  const auto dash = rest.find('-', at);
  if (dash == std::string::npos) return true;
  const long pid = std::strtol(rest.c_str(), nullptr, 10);
  if (rest.substr(at + 1, dash - at - 1) != host_tag()) return false;  // another machine's writer: by age only
  if (pid == ::getpid()) return true;  // this run has written nothing yet: an earlier process with this pid
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;  // its writer has exited
}

std::size_t remove_stale_temps(const fs::path& dir) {
  std::size_t removed = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const auto modified = it->last_write_time(ec);
    if (ec) continue;
    if (temp_is_stale(it->path().filename().string(), modified, now)) removed += fs::remove(it->path(), ec) ? 1 : 0;
  }
  return removed;
}

namespace {

// The part of `path` that exists: the path itself or its nearest existing ancestor.
fs::path nearest_existing(const fs::path& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec) && p.has_relative_path()) p = p.parent_path();
  return p;
}

void check_writable_place(const fs::path& path, const std::string& option, const fs::path& input) {
  const fs::path existing = nearest_existing(path.has_parent_path() ? path.parent_path() : fs::path("."));
  const std::string head = option + " " + path.string() + ": ";
  std::error_code ec;
  if (!fs::is_directory(existing, ec))
    throw UsageError(head + existing.string() + " is not a folder, so nothing can be written below it");
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    throw UsageError(head + "cannot write in " + existing.string() + " (" + std::strerror(errno) + ")");
  if (!input.empty() && fs::exists(input, ec) && path_within(path, input))
    throw UsageError(head + "inside the input " + input.string() + ", where it would be read as an input; write it "
                     "elsewhere");
}

}  // namespace

bool path_within(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  const fs::path i = fs::weakly_canonical(inner, ec), o = fs::weakly_canonical(outer, ec);
  auto it = i.begin();
  for (auto ot = o.begin(); ot != o.end(); ++ot, ++it) {
    if (ot->empty()) continue;  // the trailing "" of a path ending in a separator
    if (it == i.end() || *it != *ot) return false;
  }
  return true;
}

void check_output_file(const fs::path& path, const std::string& option, const fs::path& input) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(option + " " + path.string() + ": is a folder; name a file");
  check_writable_place(path, option, input);
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    throw UsageError(option + " " + path.string() + ": cannot be replaced (" + std::strerror(errno) + ")");
}

void check_output_folder(const fs::path& path, const std::string& option, const fs::path& input) {
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec))
    throw UsageError(option + " " + path.string() + ": exists and is not a folder");
  check_writable_place(path / "x", option, input);
}

}  // namespace aug
