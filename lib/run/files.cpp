#include "lib/run/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
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

// A named temporary file renamed over `path` (file systems without O_TMPFILE, or replacing a file).
void write_via_rename(const fs::path& path, const void* data, std::size_t size) {
  static std::atomic<unsigned> counter{0};
  const fs::path temp = path.parent_path() / (std::string(kTempPrefix) + std::to_string(::getpid()) + "-" +
                                              std::to_string(counter++) + "-" + path.filename().string());
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

void write_file_atomic(const fs::path& path, const void* data, std::size_t size) {
  // An unnamed file in the target folder, given its name only once complete: nothing partial
  // is ever visible, and a killed run leaves nothing behind.
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
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

std::size_t remove_stale_temps(const fs::path& dir) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().filename().string().rfind(kTempPrefix, 0) == 0)
      removed += fs::remove(it->path(), ec) ? 1 : 0;
  }
  return removed;
}

}  // namespace aug
