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
// `benchrun -json` wrote) and prints both medians and the ratio b/a, so two
// builds measured in interleaved rounds on one machine read side by side.
type compareOptions struct {
	a, b         []string
	aName, bName string
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
	fs.Float64Var(&o.limit, "limit", 1.10, "ratio b/a a hook cell may reach (the verdict column)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if a == "" || b == "" {
		return o, fmt.Errorf("-a and -b are required")
	}
	o.a, o.b = strings.Split(a, ","), strings.Split(b, ",")
	return o, nil
}

// pool reads cells from files and concatenates the samples of equal cells.
func pool(files []string) (map[string]*cell, []string, error) {
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
			k := fmt.Sprintf("%s\x00%d", c.Event, c.Size)
			if have, ok := cells[k]; ok {
				have.Wall = append(have.Wall, c.Wall...)
				have.CPU = append(have.CPU, c.CPU...)
				have.RSS = append(have.RSS, c.RSS...)
				continue
			}
			cells[k] = c
			order = append(order, k)
		}
	}
	return cells, order, nil
}

func runCompare(o compareOptions, w io.Writer) error {
	a, order, err := pool(o.a)
	if err != nil {
		return err
	}
	b, _, err := pool(o.b)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| event | log events | %s wall ms | %s wall ms | ratio | %s CPU ms | %s CPU ms | ratio | samples |\n", o.aName, o.bName, o.aName, o.bName)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
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
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %d/%d |\n", ca.Event, size, wa, wb, wb/wa, pa, pb, pb/pa, len(ca.Wall), len(cb.Wall))
	}
	if sumA > 0 {
		fmt.Fprintf(w, "\nhook cells: sum of medians %.2f → %.2f ms (%.3f); worst cell ratio %.3f (limit %.2f: %s)\n",
			sumA, sumB, sumB/sumA, worst, o.limit, verdict(worst <= o.limit))
	}
	return nil
}
