; Ring AllReduce (sum, fp32) on the board's 4-chip ring 1 -> 0 -> 2 -> 3 -> 1.
; Each chip holds 4 chunks of 64 fp32 at 0x10000 (chunk k at 0x10000 + 256*k).
; Ring position r (chip P[r]) sends on its port to P[r+1] and receives on its
; port from P[r-1]; one program per CDMA port holds that port's TX and RX
; work, and the GDMA program stages reductions through L2 SRAM as SCCL does.
; Reduce-scatter step s: the GDMA copies chunk r-1-s into L2 (l2:0x0) and
; sends message 1; the RX side waits for it and posts the RECV, which reduces
; the neighbour's chunk r-1-s (SEND psum=wr) into L2; a NOP waits until it
; has landed, then the RX side sends message 2, the GDMA waits for it,
; copies the chunk back to DDR and sends message 3, for which the TX side
; waits before sending that chunk on. All-gather step s: send chunk r+1-s
; (psum=wo) into the receiver's chunk r-s, whose RX side sends message 0
; after a NOP (once it has landed); the TX side waits for it before sending
; it on. Every message is sent for
; one waiter and waited for once (count=1).
; Data: .fill gives chip c the values 1000*c + i (i = 0..255).

.fill chip=1 addr=0x10000 dtype=fp32 count=256 start=1000 step=1
.fill chip=0 addr=0x10000 dtype=fp32 count=256 start=0 step=1
.fill chip=2 addr=0x10000 dtype=fp32 count=256 start=2000 step=1
.fill chip=3 addr=0x10000 dtype=fp32 count=256 start=3000 step=1

.program chip=0 port=0               ; link to chip 2
  SEND dtype=fp32 psum=wr src=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wo src=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=0 port=2               ; link to chip 1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  RECV dtype=fp32 op=none dst=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=0 gdma
  COPY dtype=fp32 src=0x10000 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10000 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10300 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10300 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10200 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10200 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  SYS END
.program chip=1 port=0               ; link to chip 3
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  RECV dtype=fp32 op=none dst=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=1 port=2               ; link to chip 0
  SEND dtype=fp32 psum=wr src=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wo src=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=1 gdma
  COPY dtype=fp32 src=0x10300 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10300 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10200 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10200 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10100 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10100 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  SYS END
.program chip=2 port=0               ; link to chip 0
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  RECV dtype=fp32 op=none dst=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=2 port=2               ; link to chip 3
  SEND dtype=fp32 psum=wr src=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wo src=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=2 gdma
  COPY dtype=fp32 src=0x10100 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10100 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10000 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10000 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10300 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10300 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  SYS END
.program chip=3 port=1               ; link to chip 1
  SEND dtype=fp32 psum=wr src=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wr src=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=3 count=1
  SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=3 port=2               ; link to chip 2
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  SYS RX_WAIT_MSG id=1 count=1
  RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=2 count=1
  RECV dtype=fp32 op=none dst=0x10300 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10200 shape=1,1,1,64 stride=64,64,64
  SYS NOP
  SYS RX_SEND_MSG id=0 count=1
  RECV dtype=fp32 op=none dst=0x10100 shape=1,1,1,64 stride=64,64,64
  SYS END
.program chip=3 gdma
  COPY dtype=fp32 src=0x10200 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10200 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10100 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10100 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  COPY dtype=fp32 src=0x10000 dst=l2:0x0 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=1 count=1
  SYS WAIT_MSG id=2 count=1
  COPY dtype=fp32 src=l2:0x0 dst=0x10000 shape=1,1,1,64 stride=64,64,64 dshape=1,1,1,64 dstride=64,64,64
  SYS SEND_MSG id=3 count=1
  SYS END
