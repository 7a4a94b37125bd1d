; Ring AllReduce (sum, fp32) on the board's 4-chip ring 1 -> 0 -> 2 -> 3 -> 1.
; Each chip holds 4 chunks of 64 fp32 at 0x10000 (chunk k at 0x10000 + 256*k).
; Ring position r (chip P[r]) sends on its port to P[r+1] and receives on its
; port from P[r-1]. Reduce-scatter step s: send chunk r-s with psum=wr, the
; receiver's RECV reduces it (op=add) into its chunk r-1-s. All-gather step s:
; send chunk r+1-s with psum=wo into the receiver's chunk r-s. The RX channel
; signals message 0 after each landed RECV (RX_SEND_MSG waits for the data);
; the TX channel waits for it before every send but the first.
; Data: .fill gives chip c the values 1000*c + i (i = 0..255).

.fill chip=1 addr=0x10000 dtype=fp32 count=256 start=1000 step=1
.fill chip=0 addr=0x10000 dtype=fp32 count=256 start=0 step=1
.fill chip=2 addr=0x10000 dtype=fp32 count=256 start=2000 step=1
.fill chip=3 addr=0x10000 dtype=fp32 count=256 start=3000 step=1

; ring position 0: chip 1
.program chip=1 peer=0 tx
  SEND dtype=fp32 psum=wr src=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS END
.program chip=1 peer=3 rx
  RECV dtype=fp32 op=add dst=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS END

; ring position 1: chip 0
.program chip=0 peer=2 tx
  SEND dtype=fp32 psum=wr src=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS END
.program chip=0 peer=1 rx
  RECV dtype=fp32 op=add dst=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS END

; ring position 2: chip 2
.program chip=2 peer=3 tx
  SEND dtype=fp32 psum=wr src=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS END
.program chip=2 peer=0 rx
  RECV dtype=fp32 op=add dst=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS END

; ring position 3: chip 3
.program chip=3 peer=1 tx
  SEND dtype=fp32 psum=wr src=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wr src=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS TX_WAIT_MSG id=0 count=1
  SEND dtype=fp32 psum=wo src=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS END
.program chip=3 peer=2 rx
  RECV dtype=fp32 op=add dst=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=add dst=0x10000 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10300 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10200 shape=1,1,1,64 stride=64,64,64,1
  SYS RX_SEND_MSG id=0 count=0
  RECV dtype=fp32 op=none dst=0x10100 shape=1,1,1,64 stride=64,64,64,1
  SYS END
