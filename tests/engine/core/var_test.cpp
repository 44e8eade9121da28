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

}  // namespace
}  // namespace asyncscope
