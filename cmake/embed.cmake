# Turn a text file into a NUL-terminated C array, so built-in texts live in
# their own files and the binary needs nothing at run time.
# Usage: cmake -DINPUT=<file> -DOUTPUT=<file.c> -DSYMBOL=<name> -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT}; do not edit. */\nconst char ${SYMBOL}[] = {${bytes}0x00};\n")
