#!/bin/sh
# setup_script.sh SOURCE_ROOT: scripts/setup.sh run against stand-ins for
# dpkg-query (nothing installed), sudo, apt-get (records its arguments) and
# meson (records, builds nothing), so no package is installed and no build
# starts. Every apt-get call waits for the dpkg lock instead of failing at
# once when another apt holds it, and README.md names every package the
# script installs.
root=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

mkdir "$tmp/bin"
for tool in dpkg-query sudo apt-get meson; do
    case $tool in
        dpkg-query) body='exit 1' ;;                       # nothing is installed
        sudo) body='exec "$@"' ;;
        *) body="echo \"$tool \$*\" >> \"$tmp/calls\"" ;;
    esac
    printf '#!/bin/sh\n%s\n' "$body" > "$tmp/bin/$tool"
    chmod +x "$tmp/bin/$tool"
done
# A copy of the script in a scratch tree: it cds to its parent folder and
# would build there.
mkdir "$tmp/tree" "$tmp/tree/scripts"
cp "$root/scripts/setup.sh" "$tmp/tree/scripts/"
PATH="$tmp/bin:$PATH" sh "$tmp/tree/scripts/setup.sh" > "$tmp/out" 2>&1 ||
    fail "setup.sh exited $? with stand-ins: $(cat "$tmp/out")"

apt_calls=$(grep '^apt-get ' "$tmp/calls")
echo "$apt_calls" | grep -q ' update' || fail "setup.sh ran no apt-get update"
echo "$apt_calls" | grep -q ' install' || fail "setup.sh ran no apt-get install"
echo "$apt_calls" | while read -r call; do
    case $call in
        *DPkg::Lock::Timeout=*) ;;
        *) echo "FAIL: does not wait for the dpkg lock: $call"; exit 1 ;;
    esac
done || failed=1

packages=$(sed -n 's/^packages="\(.*\)"$/\1/p' "$root/scripts/setup.sh")
[ -n "$packages" ] || fail "no packages= line in scripts/setup.sh"
for p in $packages; do
    grep -q -- "$p" "$tmp/calls" || fail "setup.sh did not install $p"
    grep -qw -- "$p" "$root/README.md" || fail "README.md does not say that setup.sh installs $p"
done
[ "$failed" -eq 0 ] && echo "setup.sh: ok ($(echo $packages | wc -w) packages, apt waits for the lock)"
exit "$failed"
