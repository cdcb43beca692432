package loadgen

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotFormat returns the image format of a chart file name ("png" or
// "svg"), or an error for other extensions.
func PlotFormat(name string) (string, error) {
	switch ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), ".")); ext {
	case "png", "svg":
		return ext, nil
	default:
		return "", fmt.Errorf("%w: chart %q: want a .png or .svg file", ErrFormat, name)
	}
}

var (
	colP50 = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colP99 = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
)

// Plot draws a sweep's chart in format "png" or "svg": on top the
// throughput-latency curves (the system's output tok/s against the median
// and P99 TTFT, and against the median and P99 ITL, a point per level), below
// the TTFT and ITL distributions of each level as box plots (box: quartiles,
// whiskers: 1.5 IQR, dots beyond).
func Plot(w io.Writer, levels []Summary, title, format string) error {
	if len(levels) == 0 {
		return fmt.Errorf("%w: nothing to plot", ErrFormat)
	}
	ttft, err := curve(levels, "TTFT (ms)", func(s *Summary) (float64, float64) { return s.TTFT.P50, s.TTFT.P99 })
	if err != nil {
		return err
	}
	itl, err := curve(levels, "ITL (ms)", func(s *Summary) (float64, float64) { return s.ITL.P50, s.ITL.P99 })
	if err != nil {
		return err
	}
	ttft.Title.Text = "Throughput vs time to first token"
	itl.Title.Text = "Throughput vs inter-token latency"
	ttftBox, err := boxes(levels, "TTFT (ms)", func(s *Summary) []float64 { return s.TTFTSamples })
	if err != nil {
		return err
	}
	itlBox, err := boxes(levels, "ITL (ms)", func(s *Summary) []float64 { return s.ITLSamples })
	if err != nil {
		return err
	}
	ttftBox.Title.Text = "TTFT distribution per level"
	itlBox.Title.Text = "ITL distribution per level"

	const wd, ht = 32 * vg.Centimeter, 24 * vg.Centimeter
	c, err := draw.NewFormattedCanvas(wd, ht, format)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	dc := draw.New(c)
	top := vg.Length(0)
	if title != "" {
		// A title line above the tiles.
		sty := plot.New().Title.TextStyle
		sty.Font.Size = 12
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - 6}, title)
		top = 26
	}
	tiles := draw.Tiles{Rows: 2, Cols: 2, PadTop: top + 4, PadBottom: 4, PadLeft: 4, PadRight: 8, PadX: 18, PadY: 18}
	grid := [][]*plot.Plot{{ttft, itl}, {ttftBox, itlBox}}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j := range grid[i] {
			grid[i][j].Draw(canvases[i][j])
		}
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("loadgen: writing the chart: %w", err)
	}
	return nil
}

// curve plots output throughput (x) against a latency's median and P99 (y),
// one labelled point per level.
func curve(levels []Summary, ylabel string, lat func(*Summary) (p50, p99 float64)) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "system output throughput (tok/s)"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p50 := make(plotter.XYs, len(levels))
	p99 := make(plotter.XYs, len(levels))
	labels := make([]string, len(levels))
	for i := range levels {
		s := &levels[i]
		a, b := lat(s)
		p50[i] = plotter.XY{X: s.OutputThroughput, Y: a}
		p99[i] = plotter.XY{X: s.OutputThroughput, Y: b}
		labels[i] = s.Level.String()
	}
	for _, ser := range []struct {
		name string
		xys  plotter.XYs
		col  color.Color
	}{{"median", p50, colP50}, {"P99", p99, colP99}} {
		l, sc, err := plotter.NewLinePoints(ser.xys)
		if err != nil {
			return nil, fmt.Errorf("loadgen: chart: %w", err)
		}
		l.Color = ser.col
		l.Width = vg.Points(1.5)
		sc.Color = ser.col
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(3)
		p.Add(l, sc)
		p.Legend.Add(ser.name, l, sc)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: p99, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("loadgen: chart: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = 9
		lb.Offset = vg.Point{X: 4, Y: 4}
	}
	p.Add(lb)
	p.Legend.Top = true
	p.Legend.Left = true
	// From zero, with room for the labels of the last points.
	p.Y.Min, p.X.Min = 0, 0
	p.X.Max *= 1.12
	p.Y.Max *= 1.12
	return p, nil
}

// boxes draws one box plot per level of the samples samples gives.
func boxes(levels []Summary, ylabel string, samples func(*Summary) []float64) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = ylabel
	p.X.Label.Text = "level"
	p.Add(plotter.NewGrid())
	names := make([]string, len(levels))
	for i := range levels {
		names[i] = levels[i].Level.String()
		xs := samples(&levels[i])
		if len(xs) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(22), float64(i), plotter.Values(xs))
		if err != nil {
			return nil, fmt.Errorf("loadgen: chart: %w", err)
		}
		b.GlyphStyle.Radius = vg.Points(1.2)
		b.FillColor = color.RGBA{R: 0xc6, G: 0xdb, B: 0xef, A: 0xff}
		p.Add(b)
	}
	p.NominalX(names...)
	// Half a slot of room either side, so the end boxes are not cut.
	p.X.Min, p.X.Max = -0.5, float64(len(levels))-0.5
	p.Y.Min = 0
	p.Y.Max *= 1.05 // the top whisker or box edge off the frame
	return p, nil
}
