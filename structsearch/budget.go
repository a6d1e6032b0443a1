package structsearch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/textfmt"
)

// ErrTooComplex is wrapped by the error for a file that matching would
// take more work than its budget allows. Search reports such a file in the
// result (Refused) and goes on with the others.
var ErrTooComplex = errors.New("too complex for structural search")

// Matching one file has two budgets, in proportion to its size. Both are
// far above what real code takes (see TestBudgetFitsRealCode), and both
// refuse what would otherwise take gigabytes or hours:
//
//   - steps: a node compared, a split tried for a $$$, a node
//     fingerprinted for a name used twice. A pattern with several $$$
//     and a name used twice can try polynomially many ways to share out
//     a long list.
//   - matched bytes: the text of every match, added up. It grows with
//     the square of the nesting: in code nested thousands of levels deep
//     every level is a match, and each spans every level inside it. The
//     matches share one copy of the file, so this costs no memory here,
//     but whoever prints them pays for every byte.
const (
	// stepsPerByte and minSteps give a file of n bytes
	// max(minSteps, stepsPerByte*n) steps.
	stepsPerByte = 1024
	minSteps     = 16 << 20
	// matchedPerByte and minMatched give a file of n bytes
	// max(minMatched, matchedPerByte*n) bytes of matches.
	matchedPerByte = 1024
	minMatched     = 16 << 20
	// checkEvery is how many steps go between two looks at the
	// context, so a cancelled search stops within a millisecond or so
	// without asking the context at every node.
	checkEvery = 1024
)

// meter counts a match's steps and matched bytes against the file's
// budgets, and looks at the context now and then. Once it has stopped
// (err is set) every step fails, so the matcher unwinds without finishing
// what it was trying.
type meter struct {
	ctx          context.Context
	steps, limit int
	next         int // steps at the next look at the context
	matched      int
	matchedLimit int
	err          error
}

// newMeter gives a match of src its budgets.
func newMeter(ctx context.Context, src []byte) *meter {
	return &meter{
		ctx:          ctx,
		limit:        max(minSteps, stepsPerByte*len(src)),
		matchedLimit: max(minMatched, matchedPerByte*len(src)),
		next:         checkEvery,
	}
}

// step spends n steps and says whether matching may go on.
func (m *meter) step(n int) bool {
	if m.err != nil {
		return false
	}
	m.steps += n
	if m.steps < m.next {
		return true
	}
	m.next = m.steps + checkEvery
	if err := m.ctx.Err(); err != nil {
		m.err = err
		return false
	}
	if m.steps > m.limit {
		m.err = errSteps
		return false
	}
	return true
}

// spendMatched counts the bytes of a match.
func (m *meter) spendMatched(n int) {
	m.matched += n
	if m.matched > m.matchedLimit && m.err == nil {
		m.err = errMatched
	}
}

// errSteps and errMatched stop a match that spent a budget; Match turns
// them into a budgetError that says why.
var (
	errSteps   = errors.New("steps spent")
	errMatched = errors.New("matched bytes spent")
)

// budgetError says why a file was not searched: which budget matching it
// would overspend, and, when the code nests deep enough to explain that,
// how deep and where.
type budgetError struct {
	pattern string
	matched bool // the matched bytes budget, not the steps
	limit   int
	size    int
	depth   int // the deepest nesting of the tree
	line    int // 1-based line of the deepest node
}

// overBudget builds the error for a match of p on the tree root of src
// that stopped with err (errSteps or errMatched). It measures the tree's
// depth to say why.
func overBudget(ctx context.Context, p *Pattern, root *sitter.Node, m *meter, size int) error {
	depth, line := deepest(ctx, root)
	e := &budgetError{pattern: p.Source, matched: m.err == errMatched, limit: m.limit, size: size, depth: depth, line: line}
	if e.matched {
		e.limit = m.matchedLimit
	}
	return e
}

func (e *budgetError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: ", ErrTooComplex)
	if e.matched {
		fmt.Fprintf(&b, "the matches of `%s` would hold more than %s bytes of text, the budget for a file of %s bytes",
			e.pattern, textfmt.Thousands(e.limit), textfmt.Thousands(e.size))
	} else {
		fmt.Fprintf(&b, "matching `%s` takes more than %s steps, the budget for a file of %s bytes",
			e.pattern, textfmt.Thousands(e.limit), textfmt.Thousands(e.size))
	}
	switch {
	case e.depth >= deepNesting:
		fmt.Fprintf(&b, ", because its code nests %s levels deep (at line %d; real code stays under %s): the file is most likely generated, or made to stress tools; search its text with grep",
			textfmt.Thousands(e.depth), e.line, textfmt.Thousands(deepNesting))
	case e.matched:
		b.WriteString(", because they nest inside each other; give a pattern that matches less, or ask for counts")
	default:
		b.WriteString(", because its lists can be shared out among the pattern's $$$ in too many ways; give a pattern with fewer $$$ or without a name used twice, or search its text with grep")
	}
	return b.String()
}

func (e *budgetError) Unwrap() error { return ErrTooComplex }

// deepNesting is a depth that real code does not reach: the deepest
// files of Go's source tree and Python's standard library nest under a
// thousand levels (Unicode tables of one long `+` chain, a test of deep
// nesting); see TestBudgetFitsRealCode.
const deepNesting = 2000

// deepest walks the tree with a cursor (no recursion, so any depth is
// fine) and returns its greatest depth and the line where it is reached.
// It stops early, with what it has seen, when ctx is done.
func deepest(ctx context.Context, root *sitter.Node) (depth, line int) {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	d := 0
	for i := 0; ; i++ {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return depth, line
		}
		if d > depth {
			depth, line = d, int(c.CurrentNode().StartPoint().Row)+1
		}
		if c.GoToFirstChild() {
			d++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return depth, line
			}
			d--
		}
	}
}
