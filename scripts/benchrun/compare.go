package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// compareOptions: `benchrun compare -a A1.json,A2.json -b B1.json,…` pools the
// samples of each (event, size) cell over the rounds of each side (files that
// `benchrun -json` wrote) and prints both medians, the ratio b/a and each
// side's multiple of the Go hello-world run in its own rounds, so two builds
// measured in interleaved rounds on one machine read side by side.
//
// Cells are matched by event, size, store and binary (hook-loop-hook and
// hook-loop rows each against their own kind). -a-binary/-b-binary pick one
// binary's rows on each side and match those across binaries: a base build
// that has no hook-loop-hook is compared with what installs write now by
// `-a-binary hook-loop -b-binary hook-loop-hook`.
type compareOptions struct {
	a, b         []string
	aName, bName string
	aBin, bBin   string
	limit        float64
}

func parseCompareFlags(args []string) (compareOptions, error) {
	var o compareOptions
	var a, b string
	fs := flag.NewFlagSet("benchrun compare", flag.ContinueOnError)
	fs.StringVar(&a, "a", "", "JSON files of the first build (the baseline), comma-separated")
	fs.StringVar(&b, "b", "", "JSON files of the second build, comma-separated")
	fs.StringVar(&o.aName, "a-name", "before", "the first build's column name")
	fs.StringVar(&o.bName, "b-name", "after", "the second build's column name")
	fs.StringVar(&o.aBin, "a-binary", "", "only the first build's cells of this binary (file name, e.g. hook-loop), matched with -b-binary's")
	fs.StringVar(&o.bBin, "b-binary", "", "only the second build's cells of this binary (e.g. hook-loop-hook)")
	fs.Float64Var(&o.limit, "limit", 1.10, "ratio b/a a hook cell may reach (the verdict column)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if a == "" || b == "" {
		return o, fmt.Errorf("-a and -b are required")
	}
	if (o.aBin == "") != (o.bBin == "") {
		return o, fmt.Errorf("-a-binary and -b-binary go together")
	}
	o.a, o.b = strings.Split(a, ","), strings.Split(b, ",")
	return o, nil
}

// pool reads cells from files and concatenates the samples of equal cells.
// With binary set it keeps only that binary's cells and the floors that name
// none (the hello-world, /bin/true; every cell of a file from before cells
// named their binary), keyed without the binary.
func pool(files []string, binary string) (map[string]*cell, []string, error) {
	cells := map[string]*cell{}
	var order []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var cs []*cell
		if err := json.Unmarshal(data, &cs); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, c := range cs {
			k := cellKey(c.Event, c.Size, c.Store, c.Binary)
			if binary != "" {
				if c.Binary != "" && c.Binary != binary {
					continue
				}
				k = cellKey(c.Event, c.Size, c.Store, "")
			}
			if have, ok := cells[k]; ok {
				have.Wall = append(have.Wall, c.Wall...)
				have.CPU = append(have.CPU, c.CPU...)
				have.RSS = append(have.RSS, c.RSS...)
				have.Hello = append(have.Hello, c.Hello...)
				continue
			}
			cells[k] = c
			order = append(order, k)
		}
	}
	return cells, order, nil
}

func runCompare(o compareOptions, w io.Writer) error {
	a, order, err := pool(o.a, o.aBin)
	if err != nil {
		return err
	}
	b, _, err := pool(o.b, o.bBin)
	if err != nil {
		return err
	}
	helloA, helloB := helloFloor(a), helloFloor(b)
	fmt.Fprintf(w, "| event | binary | log events | %s wall ms | %s wall ms | ratio | %s ÷ hello-world | %s ÷ hello-world | %s CPU ms | %s CPU ms | ratio | samples |\n", o.aName, o.bName, o.aName, o.bName, o.aName, o.bName)
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var sumA, sumB float64
	worst := 0.0
	for _, k := range order {
		ca, cb := a[k], b[k]
		if cb == nil {
			continue
		}
		wa, wb := median(ca.Wall), median(cb.Wall)
		pa, pb := median(ca.CPU), median(cb.CPU)
		size := "–"
		if ca.Size >= 0 {
			size = thousands(ca.Size)
			sumA += wa
			sumB += wb
			worst = max(worst, wb/wa)
		}
		name := ca.Event
		if ca.Store != "" {
			name += " (" + ca.Store + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | %.3f | %s | %s | %.2f | %.2f | %.3f | %d/%d |\n", name, pairName(ca.Binary, cb.Binary), size, wa, wb, wb/wa,
			multiple(wa, ca.unit(helloA)), multiple(wb, cb.unit(helloB)), pa, pb, pb/pa, len(ca.Wall), len(cb.Wall))
	}
	if sumA > 0 {
		fmt.Fprintf(w, "\nhook cells: sum of medians %.2f → %.2f ms (%.3f); worst cell ratio %.3f (limit %.2f: %s)\n",
			sumA, sumB, sumB/sumA, worst, o.limit, verdict(worst <= o.limit))
	}
	return nil
}

// helloFloor is the median of a side's hello-world row, the unit of its
// cells that carry no hello-world runs of their own rounds (0: none).
func helloFloor(cells map[string]*cell) float64 {
	for _, c := range cells {
		if c.Event == helloEvent {
			return median(c.Wall)
		}
	}
	return 0
}

// multiple is ms in units of unit, "–" without one.
func multiple(ms, unit float64) string {
	if unit <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", ms/unit)
}

// pairName is the binary column of a compared row: the one binary both sides
// ran, or which each ran.
func pairName(a, b string) string {
	switch {
	case a == b && a == "":
		return "–"
	case a == b:
		return a
	}
	return nameOr(a) + " → " + nameOr(b)
}

func nameOr(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
