# embed_machine.cmake - writes the bytes of the machine file IN into the C
# source OUT as the NUL-terminated string SYMBOL, so that the built-in board
# and the shipped file are the same bytes.
#   cmake -DIN=board.machine -DOUT=board_machine.c -DSYMBOL=name -P embed_machine.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "(..)" "0x\\1, " bytes "${hex}")
string(REPEAT "0x.., " 12 row)
string(REGEX REPLACE "(${row})" "\\1\n    " bytes "${bytes}")
get_filename_component(name "${IN}" NAME)
file(WRITE "${OUT}"
     "/* Generated from ${name} by embed_machine.cmake: do not edit. */\n"
     "#include \"sg2260.h\"\n\n"
     "const char ${SYMBOL}[] = {\n    ${bytes}0x00};\n")
