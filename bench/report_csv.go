package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// WriteCSV writes a header of the JSON field names and one row per result.
// Lists are space-separated inside their cell (as llama-bench does), maps
// are "key=value" pairs, absent optional figures are empty.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	typ := reflect.TypeOf(Result{})
	var header []string
	for i := 0; i < typ.NumField(); i++ {
		header = append(header, jsonName(typ.Field(i)))
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	for i := range rs {
		v := reflect.ValueOf(rs[i])
		row := make([]string, typ.NumField())
		for f := range row {
			row[f] = cell(v.Field(f))
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

func cell(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return cell(v.Elem())
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = cell(v.Index(i))
		}
		return strings.Join(parts, " ")
	case reflect.Map:
		var parts []string
		for _, k := range v.MapKeys() {
			parts = append(parts, k.String()+"="+cell(v.MapIndex(k)))
		}
		sort.Strings(parts)
		return strings.Join(parts, " ")
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}
