#!/bin/sh
# A stand-in selector for trying bench/testsel without cchub's test
# selection: the whole package of each changed Go file (sure), and the
# whole Python suite under test/ (cautious) when a .py file changed. It
# misses the tests of other packages that import a changed one, on
# purpose: the benchmark must report those misses.
#   go run ./bench/testsel -selector "sh $PWD/bench/testsel/testdata/stub-dirs.sh"
git diff --name-only HEAD | awk '
BEGIN { printf "{\"version\":1,\"all\":null,\"groups\":[" ; n = 0 }
/\.go$/ { d = $0; if (sub(/\/[^\/]*$/, "", d) == 0) d = "."; if (!(d in seen)) { seen[d] = 1; printf "%s{\"runner\":\"go\",\"dir\":\"%s\",\"package\":\"./%s\",\"tests\":[],\"whole\":true,\"cautious\":false,\"why\":\"stub: %s changed\"}", (n++ ? "," : ""), d, d, $0 } }
/\.py$/ { if (!py) { py = 1; printf "%s{\"runner\":\"pytest\",\"dir\":\"test\",\"tests\":[],\"whole\":true,\"cautious\":true,\"why\":\"stub: %s changed\"}", (n++ ? "," : ""), $0 } }
END { printf "],\"counts\":{\"selected\":0,\"cautious\":0,\"suite\":0}}\n" }'
