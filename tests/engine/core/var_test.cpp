// Var's dependency queue on its own: which appended op is granted when, with
// op records driven by hand (no engine, no threads).
#include "engine/core/var.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/core/op_record.h"

namespace asyncscope {
namespace {

// An op that waits on exactly one var (wait = 1, no push hold).
struct HandOp {
  OpRecord op;
  VarLink link;
  HandOp(Var& var, bool write) {
    op.wait.store(1);
    link = VarLink{&op, &var, nullptr, write};
  }
  bool granted() const { return op.wait.load() == 0; }
};

std::vector<OpRecord*> chain(OpRecord* ready) {
  std::vector<OpRecord*> out;
  for (; ready; ready = ready->next) out.push_back(ready);
  return out;
}

TEST(Var, ReadsOnAFreeVarAreGrantedTogether) {
  Var v(1);
  HandOp r1(v, false), r2(v, false);
  EXPECT_EQ(chain(v.append_read(&r1.link)), std::vector<OpRecord*>{&r1.op});
  EXPECT_EQ(chain(v.append_read(&r2.link)), std::vector<OpRecord*>{&r2.op});
  EXPECT_TRUE(v.ready_to_read());
}

TEST(Var, AWriteWaitsForGrantedReadsThenRunsAlone) {
  Var v(1);
  HandOp r1(v, false), r2(v, false), w(v, true), r3(v, false);
  v.append_read(&r1.link);
  v.append_read(&r2.link);
  EXPECT_EQ(v.append_write(&w.link), nullptr);
  EXPECT_FALSE(v.ready_to_read());
  EXPECT_EQ(v.append_read(&r3.link), nullptr) << "a read behind a waiting write waits";
  EXPECT_EQ(v.complete_read(), nullptr);
  EXPECT_EQ(chain(v.complete_read()), std::vector<OpRecord*>{&w.op});
  EXPECT_FALSE(r3.granted());
  EXPECT_EQ(chain(v.complete_write()), std::vector<OpRecord*>{&r3.op});
  EXPECT_EQ(v.complete_read(), nullptr);
  EXPECT_TRUE(v.ready_to_read());
}

TEST(Var, CompletingAWriteGrantsAllFollowingReadsUpToTheNextWrite) {
  Var v(1);
  HandOp w1(v, true), r1(v, false), r2(v, false), w2(v, true), r3(v, false);
  EXPECT_EQ(chain(v.append_write(&w1.link)), std::vector<OpRecord*>{&w1.op});
  v.append_read(&r1.link);
  v.append_read(&r2.link);
  v.append_write(&w2.link);
  v.append_read(&r3.link);
  const auto granted = chain(v.complete_write());
  EXPECT_EQ(granted.size(), 2u);
  EXPECT_TRUE(r1.granted() && r2.granted());
  EXPECT_FALSE(w2.granted());
  v.complete_read();
  EXPECT_EQ(chain(v.complete_read()), std::vector<OpRecord*>{&w2.op});
  EXPECT_EQ(chain(v.complete_write()), std::vector<OpRecord*>{&r3.op});
}

TEST(Var, ConsecutiveWritesAreGrantedOneAtATime) {
  Var v(1);
  HandOp w1(v, true), w2(v, true), w3(v, true);
  v.append_write(&w1.link);
  v.append_write(&w2.link);
  v.append_write(&w3.link);
  EXPECT_TRUE(w1.granted());
  EXPECT_EQ(chain(v.complete_write()), std::vector<OpRecord*>{&w2.op});
  EXPECT_FALSE(w3.granted());
  EXPECT_EQ(chain(v.complete_write()), std::vector<OpRecord*>{&w3.op});
  EXPECT_EQ(v.complete_write(), nullptr);
  EXPECT_TRUE(v.ready_to_read());
}

TEST(Var, AnOpIsReadyOnlyWhenItsLastVarGrantsIt) {
  Var a(1), b(2);
  OpRecord op;
  op.wait.store(2);
  VarLink la{&op, &a, nullptr, true}, lb{&op, &b, nullptr, false};
  HandOp blocker(b, true);
  b.append_write(&blocker.link);
  EXPECT_EQ(a.append_write(&la), nullptr);
  EXPECT_EQ(b.append_read(&lb), nullptr);
  EXPECT_EQ(op.wait.load(), 1);
  EXPECT_EQ(chain(b.complete_write()), std::vector<OpRecord*>{&op});
}

// Tracing: an op's earliest start (ready_ns) is the latest end of anything
// that completed on its vars, whichever completion granted it.
TEST(Var, AWriteAfterReadsStartsNoEarlierThanTheLastReadToEnd) {
  Var v(1);
  HandOp r1(v, false), r2(v, false), w(v, true);
  v.append_read(&r1.link);
  v.append_read(&r2.link);
  v.append_write(&w.link);
  // r2 ended later but finished its bookkeeping first; r1's completion grants.
  EXPECT_EQ(v.complete_read(/*end_ns=*/2000), nullptr);
  EXPECT_EQ(chain(v.complete_read(/*end_ns=*/1500)), std::vector<OpRecord*>{&w.op});
  EXPECT_EQ(w.op.ready_ns.load(), 2000);
}

TEST(Var, OpsGrantedOnAppendInheritTheLastEndOnTheVar) {
  Var v(1);
  HandOp w1(v, true), r(v, false), untraced(v, true), w2(v, true);
  v.append_write(&w1.link);
  EXPECT_EQ(w1.op.ready_ns.load(), 0) << "nothing completed here yet";
  v.complete_write(/*end_ns=*/700);
  v.append_read(&r.link);
  EXPECT_EQ(r.op.ready_ns.load(), 700);
  v.complete_read(/*end_ns=*/900);
  // An untraced completion (0) keeps what the var knew.
  v.append_write(&untraced.link);
  v.complete_write(/*end_ns=*/0);
  v.append_write(&w2.link);
  EXPECT_EQ(w2.op.ready_ns.load(), 900);
}

TEST(Var, AGrantNeverLowersAnOpsEarliestStart) {
  Var a(1), b(2);
  OpRecord op;
  op.wait.store(2);
  op.ready_ns.store(5000);  // its enqueue
  VarLink la{&op, &a, nullptr, false}, lb{&op, &b, nullptr, false};
  HandOp wa(a, true), wb(b, true);
  a.append_write(&wa.link);
  b.append_write(&wb.link);
  a.append_read(&la);
  b.append_read(&lb);
  a.complete_write(/*end_ns=*/8000);  // not the last grant: raises it
  EXPECT_EQ(op.ready_ns.load(), 8000);
  EXPECT_EQ(chain(b.complete_write(/*end_ns=*/6000)), std::vector<OpRecord*>{&op});
  EXPECT_EQ(op.ready_ns.load(), 8000);
}

}  // namespace
}  // namespace asyncscope
