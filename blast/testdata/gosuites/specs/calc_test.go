package specs

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Calc", func() {
	Context("doubling", func() {
		It("doubles two", func() {
			Expect(Double(2)).To(Equal(4))
		})
	})
	It("negates (a sign)", func() {
		Expect(Negate(1)).To(Equal(-1))
	})
})
