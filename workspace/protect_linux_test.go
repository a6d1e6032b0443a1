package workspace

import "testing"

// Where openat2 is missing (a kernel before 5.6, or a sandbox that
// filters it), os.Root opens the directories: the protection of .git and
// .cchub holds the same, and a directory that can be entered but not
// listed is still written.
func TestProtectionWithoutOpenat2(t *testing.T) {
	noOpenat2.Store(true)
	t.Cleanup(func() { noOpenat2.Store(false) })
	t.Run("links", TestWritesThroughSymlinksNeverReachGitOrState)
	t.Run("final links", TestFinalSymlinkIntoGitIsNotWrittenThrough)
	t.Run("identity", TestGitDirKnownByIdentity)
	t.Run("swap", TestSwapAfterCheckIsRefused)
	t.Run("beside", TestWritesBesideGitStillWork)
}
