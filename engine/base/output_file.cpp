#include "engine/base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>
#include <stdexcept>
#include <streambuf>

#include "engine/base/quote.h"

namespace asyncscope {
namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's own limit for a path

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Creates the temporary file for `target` beside it: open, mode 0600 until
// the caller sets the final mode. Returns the fd; `temp` gets its name.
int make_temp(const std::string& target, std::string& temp) {
  temp = parent_of(target) + "/." + name_of(target) + ".tmp-XXXXXX";
  return ::mkstemp(temp.data());
}

// The folder cannot take the temporary file: say why in the user's terms.
std::string folder_refuses(const std::string& folder, int err) {
  // ENOENT for a folder that exists: a pseudo file system (/proc) that takes no new files.
  if (err == ENOENT) return "folder " + quote(folder) + " does not take new files";
  return "cannot create a file in folder " + quote(folder) + ": " + std::strerror(err);
}

// An ostream's bytes to a file descriptor, remembering the first error;
// `stop` (may be empty) abandons the write.
class FdBuf : public std::streambuf {
 public:
  FdBuf(int fd, const std::function<bool()>& stop) : fd_(fd), stop_(stop) { setp(buffer_, buffer_ + sizeof(buffer_)); }
  int error() const noexcept { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (flush() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush(); }

 private:
  int flush() {
    const char* p = pbase();
    while (p < pptr()) {
      if (stop_ && stop_()) {
        if (error_ == 0) error_ = EINTR;
        return -1;
      }
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;  // the loop asks stop_ again
      if (n <= 0) {
        if (error_ == 0) error_ = n < 0 ? errno : EIO;
        return -1;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof(buffer_));
    return 0;
  }

  int fd_;
  const std::function<bool()>& stop_;
  int error_ = 0;
  char buffer_[1 << 16];
};

// A sticky folder that others may write (/tmp): a name in it may have been
// made by anyone, so what another user made there is not followed or replaced.
bool shared_sticky(const struct stat& folder) {
  return (folder.st_mode & S_ISVTX) != 0 && (folder.st_mode & (S_IWOTH | S_IWGRP)) != 0;
}

// Refuses `path` (a link, or the file to replace; lstat gave `st`) when it
// is another user's in a shared sticky folder: the kernel's
// protected_symlinks / protected_regular rule, applied by us because we
// read links with readlink and replace files by rename.
void refuse_planted(const std::string& path, const struct stat& st) {
  const std::string folder = parent_of(path);
  struct stat folder_st {};
  if (::stat(folder.c_str(), &folder_st) != 0 || !shared_sticky(folder_st)) return;
  if (st.st_uid == ::geteuid() || st.st_uid == folder_st.st_uid) return;
  const bool link = S_ISLNK(st.st_mode);
  throw std::invalid_argument(
      quote(path) + " is " + (link ? "a symbolic link" : "a file") + " of uid " + std::to_string(st.st_uid) +
      " in the sticky folder " + quote(folder) + ", which other users can write: refusing to " +
      (link ? "follow it (whoever made it can point it at any file)" : "replace it") +
      "; remove it or write elsewhere");
}

std::string device_inode(const struct stat& st) { return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino); }

// "cannot write --json 'a.json'" (or without the name of the output).
std::string cannot_write(const std::string& what, const std::string& path) {
  return "cannot write " + (what.empty() ? "" : what + " ") + quote(path);
}

}  // namespace

OutputTarget check_output(const std::string& path) {
  if (path.empty()) throw std::invalid_argument("empty file name");
  OutputTarget target;
  if (path == "/dev/stdout" || path == "/dev/stderr") {
    target.kind = path == "/dev/stdout" ? OutputKind::standard_output : OutputKind::standard_error;
    target.identity = path;
    return target;
  }
  std::string file = path;
  struct stat st {};
  bool exists = false;
  for (int links = 0;; ++links) {
    if (::lstat(file.c_str(), &st) != 0) {
      // Missing, or under a file rather than a folder: the folder's check below says which.
      if (errno != ENOENT && errno != ENOTDIR) throw std::invalid_argument(std::strerror(errno));
      break;
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      break;
    }
    if (links == kMaxSymlinks) throw std::invalid_argument("too many levels of symbolic links");
    refuse_planted(file, st);
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(file.c_str(), buf, sizeof(buf));
    if (n < 0 || static_cast<size_t>(n) >= sizeof(buf)) throw std::invalid_argument("cannot read the symbolic link");
    const std::string link(buf, static_cast<size_t>(n));
    file = link.front() == '/' ? link : parent_of(file) + "/" + link;
  }
  if (exists && S_ISDIR(st.st_mode)) throw std::invalid_argument("it is a folder");
  if (exists && !S_ISREG(st.st_mode)) {
    throw std::invalid_argument(
        (file == path ? "it is " : quote(path) + " leads to " + quote(file) + ", ") + kind_of(st.st_mode) +
        "; only regular files are written (or /dev/stdout, /dev/stderr)");
  }
  if (exists) refuse_planted(file, st);
  const std::string folder = parent_of(file);
  struct stat folder_st {};
  if (::stat(folder.c_str(), &folder_st) != 0) {
    if (errno == ENOENT) throw std::invalid_argument("folder " + quote(folder) + " does not exist");
    throw std::invalid_argument("folder " + quote(folder) + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(folder_st.st_mode)) throw std::invalid_argument(quote(folder) + " is not a folder");
  // Proof by doing: create the temporary file a write would create.
  std::string probe;
  const int fd = make_temp(file, probe);
  if (fd < 0) throw std::invalid_argument(folder_refuses(folder, errno));
  ::close(fd);
  ::unlink(probe.c_str());
  if (exists) {
    // Without O_TRUNC: the check must not change the file. O_NONBLOCK: should
    // the file have become a FIFO since lstat, this fails instead of blocking.
    const int existing = ::open(file.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (existing < 0) throw std::invalid_argument(std::string("the file is not writable: ") + std::strerror(errno));
    ::close(existing);
  }
  target.file = file;
  char* real_folder = ::realpath(folder.c_str(), nullptr);
  target.identity = (real_folder != nullptr ? std::string(real_folder) : folder) + "/" + name_of(file);
  std::free(real_folder);
  if (exists) target.identity = device_inode(st);
  return target;
}

std::string check_writable(const std::string& path) {
  try {
    check_output(path);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

OutputSet::OutputSet(std::ostream& standard_output, std::ostream& standard_error)
    : standard_output_(standard_output), standard_error_(standard_error) {}

void OutputSet::add(const std::string& what, const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    return std::invalid_argument(cannot_write(what, path) + ": " + why);
  };
  OutputTarget target;
  try {
    target = check_output(path);
  } catch (const std::invalid_argument& e) {
    throw refuse(e.what());
  }
  Output output{what, path, std::move(target), {}, {}};
  refuse_clash(output);
  outputs_.push_back(std::move(output));
}

void OutputSet::refuse_clash(const Output& output) const {
  const auto refuse = [&](const std::string& why) {
    return std::invalid_argument(cannot_write(output.what, output.path) + ": " + why);
  };
  for (const Input& input : inputs_) {
    if (input.identity == output.target.identity) {
      throw refuse(input.path == output.path ? "it is " + input.what + " being read; give the output a file of its own"
                                             : "it is the same file as " + input.what + " " + quote(input.path) +
                                                   ", which is being read; give the output a file of its own");
    }
  }
  for (const Output& other : outputs_) {
    if (&other == &output || other.target.identity != output.target.identity) continue;
    throw refuse(other.path == output.path ? "it is also the " + other.what + " output; give each output its own file"
                                           : "it is the same file as " + other.what + " " + quote(other.path) +
                                                 "; give each output its own file");
  }
}

void OutputSet::add_input(const std::string& what, const std::string& path) {
  struct stat st {};
  // Streams and missing files are not files an output could replace.
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  inputs_.push_back(Input{what, path, device_inode(st)});
  try {
    for (const Output& output : outputs_) refuse_clash(output);
  } catch (...) {
    inputs_.pop_back();
    throw;
  }
}

void OutputSet::set_content(const std::string& what, OutputWriter writer) {
  for (Output& output : outputs_) {
    if (output.what == what) output.writer = std::move(writer);
  }
}

void OutputSet::write_temp(Output& output) {
  const std::string& file = output.target.file;
  const int fd = make_temp(file, output.temp);
  if (fd < 0) {
    output.temp.clear();
    throw std::runtime_error(folder_refuses(parent_of(file), errno));
  }
  // A replaced file keeps its permissions; a new one gets the usual 0644, not mkstemp's 0600.
  struct stat existing {};
  ::fchmod(fd, ::stat(file.c_str(), &existing) == 0 ? existing.st_mode & 07777 : 0644);
  FdBuf buf(fd, stop_);
  std::ostream out(&buf);
  // A block that could not be written (a stop, a full disk) ends the writer
  // at once, instead of letting it format the rest of its content for a
  // stream that drops it: seconds for a large trace.
  out.exceptions(std::ios::badbit);
  int err = 0;
  try {
    output.writer(out);
    out.flush();
    if (!out) err = buf.error() != 0 ? buf.error() : EIO;
  } catch (...) {
    ::close(fd);
    if (buf.error() == EINTR) throw std::runtime_error("interrupted");
    if (buf.error() != 0) throw std::runtime_error(std::strerror(buf.error()));
    throw;
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == EINTR) throw std::runtime_error("interrupted");
  if (err != 0) throw std::runtime_error(std::strerror(err));
}

void OutputSet::write_stream(Output& output) {
  std::ostream& out = output.target.kind == OutputKind::standard_output ? standard_output_ : standard_error_;
  // As for a file: a write that failed (a signal's EINTR, a closed pipe)
  // ends the writer at once.
  const std::ios::iostate mask = out.exceptions();
  try {
    out.exceptions(mask | std::ios::badbit);
    output.writer(out);
    out.flush();
    out.exceptions(mask);
  } catch (...) {
    out.exceptions(mask);  // the stream stays bad: its owner sees that too
    if (stop_ && stop_()) throw std::runtime_error("interrupted");
    if (out.bad()) throw std::runtime_error("the stream could not be written (full disk or closed pipe?)");
    throw;  // the writer's own error
  }
  if (!out) throw std::runtime_error("the stream could not be written (full disk or closed pipe?)");
}

void OutputSet::remove_temps() noexcept {
  for (Output& output : outputs_) {
    if (!output.temp.empty()) ::unlink(output.temp.c_str());
    output.temp.clear();
  }
}

void OutputSet::commit() {
  Output* current = nullptr;
  const auto check_stop = [this] {
    if (stop_ && stop_()) throw std::runtime_error("interrupted");
  };
  try {
    for (const bool streams : {false, true}) {
      for (Output& output : outputs_) {
        if (!output.writer || (output.target.kind != OutputKind::file) != streams) continue;
        current = &output;
        check_stop();
        streams ? write_stream(output) : write_temp(output);
      }
    }
    check_stop();  // the last moment to change one's mind: from here on, files are replaced
    for (Output& output : outputs_) {
      if (output.temp.empty()) continue;
      current = &output;
      if (::rename(output.temp.c_str(), output.target.file.c_str()) != 0) {
        throw std::runtime_error(std::strerror(errno));
      }
      output.temp.clear();
    }
  } catch (const std::exception& e) {
    remove_temps();
    throw std::runtime_error((current ? cannot_write(current->what, current->path) : "cannot write the outputs") + ": " +
                             e.what());
  }
}

void write_output(const std::string& path, const OutputWriter& writer, const std::string& what,
                  std::function<bool()> stop) {
  OutputSet set(std::cout, std::cerr);
  set.stop_when(std::move(stop));
  try {
    set.add(what, path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  set.set_content(what, writer);
  set.commit();
}

}  // namespace asyncscope
