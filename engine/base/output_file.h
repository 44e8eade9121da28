// Output files (the CLI's --json, --trace and --screenshot, the app's
// exports and screenshots, the trace layer's write_chrome_trace to a path):
// which paths may be written, checked before a run by really creating a file
// (access() says yes to root for anything), and writing a run's outputs so
// that either all of them are replaced or none.
//
// The rule for a path:
//   - a regular file, or a name that does not exist yet in an existing
//     folder: written to a temporary file beside it (".NAME.tmp-XXXXXX",
//     unique), which is renamed over it once complete;
//   - a symbolic link: followed (to its end, at most 40 links); the file it
//     names is replaced as above, the link stays. Refused, as the kernel's
//     fs.protected_symlinks refuses it (which does not apply here: the links
//     are read with readlink), when the link lies in a sticky folder open to
//     others (/tmp) and belongs to another user than this one and the
//     folder's owner: whoever planted it could point it at any file;
//   - a regular file in such a folder that belongs to another user than this
//     one and the folder's owner: refused too (fs.protected_regular's rule),
//     since replacing it would hand its name to us;
//   - exactly "/dev/stdout" or "/dev/stderr": a stream, written directly to
//     the process's standard output or error (nothing to rename or undo);
//   - anything else that exists (a folder, a FIFO, a character or block
//     device such as a copy of /dev/null, a socket) is refused, and never
//     renamed over.
//
// Threading: any thread; an OutputSet is used by one thread at a time.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace asyncscope {

enum class OutputKind { file, standard_output, standard_error };

// Where a path writes.
struct OutputTarget {
  OutputKind kind = OutputKind::file;
  std::string file;      // the file to replace, symbolic links followed ("" for a stream)
  std::string identity;  // the same for two paths that write the same file or stream
};

// Resolves `path` by the rule above and proves it can be written: a
// temporary file is created (and removed) in the target's folder, and an
// existing file is opened for writing. Throws std::invalid_argument with the
// reason (without the path), e.g. "it is a FIFO (named pipe): ...".
OutputTarget check_output(const std::string& path);

// "" if `path` can be written, otherwise the reason (check_output's).
std::string check_writable(const std::string& path);

// Writes an output's content.
using OutputWriter = std::function<void(std::ostream& out)>;

// Outputs committed together, and the files the command reads (its inputs):
// an output that is one of them (the same device and inode, whatever links
// or names lead there) is refused, so a command never replaces what it
// reads. Each is checked when added; commit() writes
// every file output to its temporary file, then the streams, and only when
// all of that succeeded renames the temporary files into place. On any
// failure the temporary files are removed and no file is replaced (a rename
// itself failing, within one folder, is the only step that cannot be undone).
class OutputSet {
 public:
  // Streams for "/dev/stdout" and "/dev/stderr" (the CLI's out and err).
  OutputSet(std::ostream& standard_output, std::ostream& standard_error);

  // `what` names the output in messages ("--json"). Throws
  // std::invalid_argument "cannot write WHAT 'PATH': reason" if the path
  // cannot be written or another output of the set already goes there.
  void add(const std::string& what, const std::string& path);
  // A file the command reads, named in messages as `what` ("the trace",
  // "the script"): an output added before or after that is the same file is
  // refused ("cannot write --json 'a.json': it is the trace being read ...").
  // A path that does not name an existing file is not recorded (whoever
  // reads it says why it cannot). Throws std::invalid_argument as add().
  void add_input(const std::string& what, const std::string& path);
  // The content of an output added before (an output without one is skipped).
  void set_content(const std::string& what, OutputWriter writer);
  bool empty() const noexcept { return outputs_.empty(); }
  // Asked before every block written, and again when a write was interrupted
  // by a signal (EINTR): true abandons the commit as a failure ("interrupted").
  void stop_when(std::function<bool()> stop) { stop_ = std::move(stop); }

  // Throws std::runtime_error "cannot write WHAT 'PATH': reason" (and
  // nothing was replaced).
  void commit();

 private:
  struct Output {
    std::string what;
    std::string path;  // as given
    OutputTarget target;
    OutputWriter writer;
    std::string temp;  // while committing
  };
  void write_temp(Output& output);
  void write_stream(Output& output);
  void remove_temps() noexcept;

  struct Input {
    std::string what;
    std::string path;
    std::string identity;  // device:inode
  };
  // Throws if `output` is an input (or another output) already in the set.
  void refuse_clash(const Output& output) const;

  std::ostream& standard_output_;
  std::ostream& standard_error_;
  std::vector<Output> outputs_;
  std::vector<Input> inputs_;
  std::function<bool()> stop_;
};

// One output on its own (an export, a screenshot), streams going to
// std::cout and std::cerr: the same rule, check and all-or-nothing write
// (`stop` as for OutputSet::stop_when). Throws std::runtime_error
// "cannot write WHAT 'PATH': reason".
void write_output(const std::string& path, const OutputWriter& writer, const std::string& what = "",
                  std::function<bool()> stop = {});

}  // namespace asyncscope
