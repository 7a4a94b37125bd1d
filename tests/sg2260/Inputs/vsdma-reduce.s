.program chip=0 vsdma=1
  REDUCE dtype=fp32 op=add src=0x1000 dst=l2:0x0 elems=64
  SYS END
