#!/bin/sh
# bash_completion.sh GPUIMG SCRIPT: the bash completion offers every command
# `gpuimg --help` lists, a command's own options (blur: --sigma) and the
# values of --device, rotate and resize's and crop's choices. 77 without bash.
gpuimg=$1 script=$2
command -v bash >/dev/null 2>&1 || { echo "no bash: skipped"; exit 77; }
exec bash -c '
gpuimg=$1
source "$2" || exit 1
failed=0
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuimg; echo " ${COMPREPLY[*]} "; }
expect() { # expect WANTED WORD... : the completion of the words holds WANTED
    want=$1; shift
    case $(complete_words "$@") in *" $want "*) ;; *) echo "FAIL: $* -> no $want"; failed=1 ;; esac
}
for c in $("$gpuimg" --help | sed -n "/^Commands:/,/^\$/p" | awk "NR > 1 && NF { print \$1 }"); do
    expect "$c" "$gpuimg" ""
done
expect --sigma "$gpuimg" blur --
expect --tolerance "$gpuimg" compare --
expect cuda "$gpuimg" blur --device ""
expect 270 "$gpuimg" rotate ""
expect box "$gpuimg" blur --kernel ""
expect --filter "$gpuimg" resize --
expect lanczos3 "$gpuimg" resize --filter ""
expect cover "$gpuimg" resize --fit ""
expect gaussian "$gpuimg" blur -k ""
expect centre "$gpuimg" crop --gravity ""
expect centre "$gpuimg" thumbnail --crop ""
[ "$failed" -eq 0 ] && echo "bash completion: ok"
exit $failed
' sh "$gpuimg" "$script"
