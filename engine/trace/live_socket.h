// The plumbing under live attach (live.h): where the sockets live and what
// may be removed there, connecting, the peer's credentials, reading a
// publisher's hello, and what /proc says about this process. The server
// (live_server.cpp) and the client (live_client.cpp) are built on it.
//
// Only this user's sockets are ever touched in the folder: a name PID.sock
// that is a regular file, a link, a folder or another user's socket is left
// alone, whoever made it.
//
// Threading: any thread (no state).
#pragma once

#include <sys/un.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/trace/live_protocol.h"

namespace asyncscope::trace::live {

std::string socket_path(const std::string& directory, int pid);
// Throws LiveError when the path is too long for a Unix socket.
sockaddr_un address_of(const std::string& path);
// The uid of the process at the other end (UINT32_MAX if unknown).
uint32_t peer_uid(int fd);
// Connects to a publisher's socket: the fd, or -1 with *err set.
int connect_to(const std::string& path, int* err);

// Reads exactly `bytes` within `deadline` (steady ns). How it ended:
enum class ReadResult { done, closed, timed_out, failed };
ReadResult read_exact(int fd, char* out, size_t bytes, int64_t deadline);
// Writes all of `bytes` within `deadline`; false if it could not.
bool write_all(int fd, const std::string& bytes, int64_t deadline);

// The sockets named PID.sock in `directory` that are sockets of this user
// (lstat: S_ISSOCK, owner geteuid()), by pid.
std::vector<std::pair<int, std::string>> sockets_in(const std::string& directory);
// Removes `path` if it is still a socket of this user; whether it did.
bool remove_socket(const std::string& path);

// Reads a publisher's first frame: its hello, or its refusal (thrown as
// LiveError with the publisher's reason, its control characters escaped).
// Throws LiveError for no answer within `limit`, a closed connection, or
// a hello of another protocol.
LiveHello read_hello(int fd, const std::string& path, std::chrono::milliseconds limit);

bool process_exists(int pid);
// This process's command line, arguments separated by spaces.
std::string own_command_line();
// The program's name and its script's ("python3 train.py"), or the process's name.
std::string default_title();

}  // namespace asyncscope::trace::live
