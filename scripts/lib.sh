# scripts/lib.sh - shell helpers the development scripts share. Source it.

say() { printf '\n== %s\n' "$*"; }

# install_missing PACKAGE... - apt-get install the Debian packages not yet
# installed (through sudo when not root).
install_missing() {
	local missing=() p sudo=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "need root or sudo to install ${missing[*]}" >&2; exit 1; }
		sudo=(sudo)
	fi
	"${sudo[@]}" apt-get update -qq || true
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}
