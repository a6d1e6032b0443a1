// Package gitcmd is the one place that knows how cchub runs git: which
// git (PATH's, found once), in which directory, with which environment
// and options, for how long, and what its failure says.
//
// Invariants:
//   - git runs through package proc: in a process group of its own, dying
//     with cchub, interrupted then killed when its context ends, reaped.
//   - Nothing of the user's setup changes what is parsed or waits on a
//     person: no pager (GIT_PAGER=cat, --no-pager), no colour, no
//     terminal prompt, paths printed as they are unless QuotePaths asks
//     git to quote them, messages in English (LC_ALL=C), and no optional
//     locks taken for a mere look (GIT_OPTIONAL_LOCKS=0: a diff against
//     the working tree would otherwise refresh the index). Diff adds what
//     a diff needs: no external diff, no textconv, a/ and b/ prefixes.
//   - git is a reader only: nothing a repository's configuration names is
//     run. Every command gets -c options that switch off the file system
//     monitor (core.fsmonitor), hooks (core.hooksPath), an external diff,
//     pagers, signature checks, submodule recursion, automatic
//     maintenance and every transport (protocol.allow=never: a partial
//     clone's lazy fetch would run ssh or a credential helper), and for
//     each filter driver the configuration defines (read once per Git with
//     git config, which runs nothing) empty clean, smudge and process
//     commands, not required: a .gitattributes line naming a driver would
//     otherwise run it as soon as git reads the working tree. A driver
//     whose name -c cannot spell is refused, not run.
//   - Output is bounded in bytes (the limit its caller gives; git is
//     killed past it) and in time (Timeout).
//   - A command that fails says what git said: *Error, "git <command>:
//     <the start of its stderr>".
//
// What it does not do: parse what git prints (its callers do), write to
// a repository (every use is a look), or choose revisions.
package gitcmd
