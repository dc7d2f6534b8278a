#!/bin/bash
# CC wrapper for gcdbg (compiler.Options reads $CC): applies the sed expression $INJ_SED to every
# generated .c file before gcc, to inject a bug into the compiled kernels. Use it with a private
# GCDBG_CACHE_DIR so the shared build cache is untouched.
args=()
for a in "$@"; do
  if [[ "$a" == *.c && -f "$a" && -n "$INJ_SED" ]]; then
    sed -i "$INJ_SED" "$a"
  fi
  args+=("$a")
done
exec gcc "${args[@]}"
