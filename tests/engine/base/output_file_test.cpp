// Output paths: regular files replaced through a temporary file, symbolic
// links written through, special files refused and left alone, streams
// written in place, writability proven by creating a file, and a set of
// outputs committed all or none.
#include "engine/base/output_file.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>


namespace asyncscope {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed when the test's process exits.
struct MadeFolders {
  std::vector<fs::path> paths;
  ~MadeFolders() {
    for (const auto& path : paths) {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  }
};

std::string folder() {
  static MadeFolders made;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::temp_directory_path() / ("asyncscope_output_file_" + std::to_string(::getpid()) + "_" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  made.paths.push_back(dir);
  return dir.string();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// What is in the folder besides `expected`: temporary files left behind.
std::vector<std::string> leftovers(const std::string& dir, const std::vector<std::string>& expected) {
  std::vector<std::string> extra;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) extra.push_back(name);
  }
  return extra;
}

std::string refusal(const std::string& path) {
  const std::string why = check_writable(path);
  EXPECT_FALSE(why.empty()) << path << " was accepted";
  return why;
}

OutputWriter text(const std::string& t) {
  return [t](std::ostream& out) { out << t; };
}

TEST(OutputFile, ANewOrRegularFileIsReplacedWholeWithItsModeKept) {
  const std::string dir = folder();
  write_output(dir + "/new.json", text("fresh"));
  EXPECT_EQ(read(dir + "/new.json"), "fresh");
  EXPECT_EQ(fs::status(dir + "/new.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  write(dir + "/old.json", "old");
  ::chmod((dir + "/old.json").c_str(), 0640);
  write_output(dir + "/old.json", text("new"));
  EXPECT_EQ(read(dir + "/old.json"), "new");
  EXPECT_EQ(fs::status(dir + "/old.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_TRUE(leftovers(dir, {"new.json", "old.json"}).empty());
}

TEST(OutputFile, ASymbolicLinkIsWrittenThroughAndStays) {
  const std::string dir = folder();
  fs::create_directories(dir + "/real");
  write(dir + "/real/target.json", "old");
  fs::create_symlink("real/target.json", dir + "/relative.json");  // relative to the link's folder
  fs::create_symlink(dir + "/relative.json", dir + "/chain.json");  // a link to a link
  write_output(dir + "/chain.json", text("through"));
  EXPECT_TRUE(fs::is_symlink(dir + "/chain.json"));
  EXPECT_TRUE(fs::is_symlink(dir + "/relative.json"));
  EXPECT_EQ(read(dir + "/real/target.json"), "through");
  // A dangling link creates the file it names.
  fs::create_symlink("real/later.json", dir + "/dangling.json");
  write_output(dir + "/dangling.json", text("created"));
  EXPECT_TRUE(fs::is_symlink(dir + "/dangling.json"));
  EXPECT_EQ(read(dir + "/real/later.json"), "created");
  EXPECT_TRUE(leftovers(dir + "/real", {"target.json", "later.json"}).empty());
  // A loop is refused, not followed forever.
  fs::create_symlink("loop-b", dir + "/loop-a");
  fs::create_symlink("loop-a", dir + "/loop-b");
  EXPECT_NE(refusal(dir + "/loop-a").find("too many levels of symbolic links"), std::string::npos);
}

TEST(OutputFile, AFifoIsRefusedAtOnceAndLeftAFifo) {
  const std::string dir = folder();
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_NE(refusal(fifo).find("it is a FIFO (named pipe); only regular files are written"), std::string::npos);
  EXPECT_THROW(write_output(fifo, text("x")), std::runtime_error);
  fs::create_symlink("pipe", dir + "/to-pipe");
  EXPECT_NE(refusal(dir + "/to-pipe").find("leads to '" + dir + "/pipe', a FIFO"), std::string::npos);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(leftovers(dir, {"pipe", "to-pipe"}).empty());
}

// Copies of /dev/null and /dev/full made with mknod: refused, still devices.
TEST(OutputFile, ACharacterDeviceIsRefusedAndLeftADevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root";
  const std::string dir = folder();
  for (const auto& [name, minor] : {std::pair{"null", 3u}, {"full", 7u}}) {
    const std::string dev = dir + "/" + name;
    if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) {
      GTEST_SKIP() << "mknod is not permitted here: " << std::strerror(errno);
    }
    EXPECT_NE(refusal(dev).find("it is a character device"), std::string::npos);
    EXPECT_THROW(write_output(dev, text("x")), std::runtime_error);
    EXPECT_TRUE(fs::is_character_file(dev));
  }
  EXPECT_NE(refusal("/dev/null").find("character device"), std::string::npos);
  EXPECT_TRUE(leftovers(dir, {"null", "full"}).empty());
}

TEST(OutputFile, FoldersAndMissingFoldersAreRefused) {
  const std::string dir = folder();
  EXPECT_EQ(refusal(dir), "it is a folder");
  EXPECT_EQ(refusal(dir + "/none/x.json"), "folder '" + dir + "/none' does not exist");
  write(dir + "/file", "");
  EXPECT_EQ(refusal(dir + "/file/x.json"), "'" + dir + "/file' is not a folder");
  EXPECT_EQ(refusal(""), "empty file name");
}

// access() says yes to root for anything: the check creates a file instead.
TEST(OutputFile, WritabilityIsProvenByCreatingAFile) {
  if (!fs::exists("/proc/version")) GTEST_SKIP() << "no /proc here";
  EXPECT_EQ(refusal("/proc/version"), "folder '/proc' does not take new files");
  EXPECT_FALSE(check_writable("/proc/self/new.json").empty());
  if (::geteuid() != 0) {
    const std::string dir = folder();
    write(dir + "/ro.json", "keep");
    ::chmod((dir + "/ro.json").c_str(), 0444);
    EXPECT_NE(refusal(dir + "/ro.json").find("the file is not writable"), std::string::npos);
    ::chmod(dir.c_str(), 0555);
    EXPECT_NE(refusal(dir + "/new.json").find("cannot create a file in folder"), std::string::npos);
    ::chmod(dir.c_str(), 0755);
  }
}

TEST(OutputFile, StandardOutputAndErrorAreStreams) {
  EXPECT_EQ(check_output("/dev/stdout").kind, OutputKind::standard_output);
  EXPECT_EQ(check_output("/dev/stderr").kind, OutputKind::standard_error);
  std::ostringstream out, err;
  OutputSet set(out, err);
  set.add("--json", "/dev/stdout");
  set.add("--trace", "/dev/stderr");
  set.set_content("--json", text("{json}"));
  set.set_content("--trace", text("{trace}"));
  set.commit();
  EXPECT_EQ(out.str(), "{json}");
  EXPECT_EQ(err.str(), "{trace}");
}

TEST(OutputFile, TwoOutputsToOneFileAreRefused) {
  const std::string dir = folder();
  write(dir + "/a.json", "a");
  fs::create_symlink("a.json", dir + "/link.json");
  fs::create_hard_link(dir + "/a.json", dir + "/hard.json");
  std::ostringstream out, err;
  for (const std::string& second : {dir + "/a.json", dir + "/./a.json", dir + "/link.json", dir + "/hard.json"}) {
    OutputSet set(out, err);
    set.add("--json", dir + "/a.json");
    try {
      set.add("--trace", second);
      ADD_FAILURE() << second << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("cannot write --trace '" + second + "': "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("give each output its own file"), std::string::npos) << e.what();
    }
  }
  OutputSet new_files(out, err);
  new_files.add("--json", dir + "/new.json");
  EXPECT_THROW(new_files.add("--trace", dir + "/../out/new.json"), std::invalid_argument);
  OutputSet streams(out, err);
  streams.add("--json", "/dev/stdout");
  EXPECT_THROW(streams.add("--trace", "/dev/stdout"), std::invalid_argument);
}

// A command never replaces what it reads: an output that is an input, by
// the same name, another name, a link or a hard link, in either order.
TEST(OutputFile, AnOutputThatIsAnInputIsRefused) {
  const std::string dir = folder();
  write(dir + "/t.json", "the trace");
  fs::create_symlink("t.json", dir + "/link.json");
  fs::create_hard_link(dir + "/t.json", dir + "/hard.json");
  std::ostringstream out, err;
  for (const std::string& output : {dir + "/t.json", dir + "/./t.json", dir + "/link.json", dir + "/hard.json"}) {
    for (const bool input_first : {true, false}) {
      OutputSet set(out, err);
      try {
        if (input_first) set.add_input("the trace", dir + "/t.json");
        set.add("--json", output);
        if (!input_first) set.add_input("the trace", dir + "/t.json");
        ADD_FAILURE() << output << " was accepted";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cannot write --json '" + output + "': "), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("the trace"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("give the output a file of its own"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_EQ(read(dir + "/t.json"), "the trace");
  OutputSet other(out, err);
  other.add_input("the trace", dir + "/t.json");
  other.add("--json", dir + "/answers.json");  // another file is fine
  other.add_input("a missing file", dir + "/missing.json");  // not a file an output could replace
}

// As root (how most containers run): a link or a file that another user
// planted in a sticky folder open to all (/tmp) is not written through or
// replaced, as the kernel's fs.protected_symlinks / protected_regular would
// refuse them (our checks read links themselves, so the kernel's rule does
// not apply). The link's target is left as it was.
TEST(OutputFile, AnotherUsersLinkOrFileInAStickyFolderIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make files of another user (lchown)";
  const std::string dir = folder();
  const std::string shared = dir + "/shared";
  fs::create_directories(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  write(dir + "/precious", "precious");
  const uid_t other = 65534;  // nobody
  fs::create_symlink(dir + "/precious", shared + "/x.json");
  ASSERT_EQ(::lchown((shared + "/x.json").c_str(), other, other), 0);
  EXPECT_NE(refusal(shared + "/x.json").find("is a symbolic link of uid 65534 in the sticky folder"), std::string::npos);
  EXPECT_THROW(write_output(shared + "/x.json", text("overwritten")), std::runtime_error);
  EXPECT_EQ(read(dir + "/precious"), "precious");
  write(shared + "/theirs.json", "theirs");
  ASSERT_EQ(::chown((shared + "/theirs.json").c_str(), other, other), 0);
  EXPECT_NE(refusal(shared + "/theirs.json").find("is a file of uid 65534 in the sticky folder"), std::string::npos);
  EXPECT_EQ(read(shared + "/theirs.json"), "theirs");
  // This user's own link there, and links outside sticky folders, are followed as before.
  fs::create_symlink(dir + "/mine", shared + "/mine.json");
  write_output(shared + "/mine.json", text("mine"));
  EXPECT_EQ(read(dir + "/mine"), "mine");
  fs::create_symlink(dir + "/elsewhere", dir + "/theirs-outside.json");
  ASSERT_EQ(::lchown((dir + "/theirs-outside.json").c_str(), other, other), 0);
  write_output(dir + "/theirs-outside.json", text("outside"));
  EXPECT_EQ(read(dir + "/elsewhere"), "outside");
}

// Either every output of a set is replaced or none is.
// A stop (a signal) during a long write ends the writer at its next block,
// not after it formatted the rest of its content for a stream that drops it.
TEST(OutputFile, AStopEndsAWriterThatWouldWriteOnAtItsNextBlock) {
  const std::string dir = folder();
  write(dir + "/big.json", "precious");
  std::ostringstream out, err;
  OutputSet set(out, err);
  set.add("--trace", dir + "/big.json");
  std::atomic<int64_t> written{0};
  set.set_content("--trace", [&written](std::ostream& o) {
    const std::string block(4096, 'x');
    for (int i = 0; i < 1'000'000; ++i) {  // 4 GB unless stopped
      o << block;
      written += static_cast<int64_t>(block.size());
    }
  });
  set.stop_when([&written] { return written.load() > (int64_t{1} << 20); });
  EXPECT_THROW(set.commit(), std::runtime_error);
  EXPECT_LT(written.load(), int64_t{4} << 20);
  EXPECT_EQ(read(dir + "/big.json"), "precious");
  EXPECT_TRUE(leftovers(dir, {"big.json"}).empty());

  // The same to a stream (--trace /dev/stdout) whose writes fail (a closed
  // pipe, a signal's EINTR): the writer ends at the first failed write.
  struct Failing : std::streambuf {
    int overflow(int) override { return traits_type::eof(); }
  } failing;
  std::ostream lost(&failing);
  OutputSet to_stream(lost, err);
  to_stream.add("--trace", "/dev/stdout");
  written = 0;
  to_stream.set_content("--trace", [&written](std::ostream& o) {
    for (int i = 0; i < 1'000'000; ++i) {
      o << std::string(4096, 'x');
      written += 4096;
    }
  });
  EXPECT_THROW(to_stream.commit(), std::runtime_error);
  EXPECT_LT(written.load(), int64_t{1} << 20);
  EXPECT_TRUE(lost.bad());
}

TEST(OutputFile, AFailedOutputReplacesNoneOfTheSet) {
  const std::string dir = folder();
  write(dir + "/a.json", "precious a");
  write(dir + "/b.json", "precious b");
  std::ostringstream out, err;
  OutputSet set(out, err);
  set.add("--json", dir + "/a.json");
  set.add("--trace", dir + "/b.json");
  set.set_content("--json", text("new a"));
  set.set_content("--trace", [](std::ostream& o) {
    o << "half of b";
    throw std::runtime_error("the exporter failed");
  });
  try {
    set.commit();
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write --trace '" + dir + "/b.json': the exporter failed");
  }
  EXPECT_EQ(read(dir + "/a.json"), "precious a");
  EXPECT_EQ(read(dir + "/b.json"), "precious b");
  EXPECT_TRUE(leftovers(dir, {"a.json", "b.json"}).empty());

  // A stream that fails (a full disk under stdout) also leaves the files alone.
  struct Full : std::streambuf {
    int overflow(int) override { return traits_type::eof(); }
  } full;
  std::ostream lost(&full);
  OutputSet with_stream(lost, err);
  with_stream.add("--json", dir + "/a.json");
  with_stream.add("--trace", "/dev/stdout");
  with_stream.set_content("--json", text("new a"));
  with_stream.set_content("--trace", text("trace"));
  EXPECT_THROW(with_stream.commit(), std::runtime_error);
  EXPECT_EQ(read(dir + "/a.json"), "precious a");
  EXPECT_TRUE(leftovers(dir, {"a.json", "b.json"}).empty());
}

}  // namespace
}  // namespace asyncscope
