// Where threads run: the CPU the calling thread is on, and a way for an
// engine worker to leave the CPU of the thread it serves.
//
// Why: two threads that hand work back and forth and spin while they wait
// (the frontend and a worker) can end up on one CPU with another CPU idle.
// A futex wake-up may place the woken thread beside its waker, and once
// there, the two yield the CPU to each other every few microseconds, both
// stay cache-hot, and the kernel's balancer does not separate them: a
// 1-element push + wait is then markedly slower than with the two apart, and
// the state can last the whole run (docs/PERFORMANCE.md).
// The worker notices (the waiter it signalled armed its wait on the
// worker's CPU) and moves away when other processes leave a CPU free.
// Threading: any thread; each call concerns the calling thread only.
#pragma once

namespace asyncscope {

// The CPU the calling thread runs on now (it may move at any time), or -1
// where the system cannot say. A few nanoseconds (rseq on Linux).
int current_cpu() noexcept;

// Moves the calling thread off the CPU it runs on onto another one its
// affinity mask allows, keeping that mask: narrowed for the move, then
// restored (the thread stays where it landed until the scheduler moves it).
// False, doing nothing, when the mask allows no other CPU or the system
// refuses. Two system calls; not for a hot path.
bool move_to_another_cpu() noexcept;

// Whether, of the CPUs the calling thread may use, at least `threads` are
// not wanted by other processes: the running and runnable threads of the
// system (/proc/loadavg) less this process's (/proc/self/task/*/stat,
// state R). This process's own threads are left out because ours spin
// politely (they yield, and sleep soon); a compiler's do not. With every
// CPU busy with other processes, a worker that moved away from the
// frontend's CPU waits behind one of them for a scheduler tick at each
// hand-off (round trips of milliseconds). False where the system cannot
// say. Reads files (tens of microseconds); not for a hot path.
bool cpus_free_for(int threads) noexcept;

}  // namespace asyncscope
