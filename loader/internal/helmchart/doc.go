// Package helmchart reads and renders Helm charts for the loader and
// locates the fields of the objects they render: a chart (a directory
// with Chart.yaml, or a .tgz) is read with Helm's chart loader, handed the
// files taintlint read itself and charged to the run's input budget, and
// rendered by internal/helmrender as helm template renders it, with no
// cluster, network or program behind it (in a worker process when the run
// bounds a render's time or memory). Each rendered template comes back as
// output for the loader to read like a file, with a Locator that places a
// field in the template, the helper template or the values file line that
// supplied it.
//
// It knows nothing of the loader's Objects: the loader reads the output,
// keeps the Locator behind each object (its helm backing) and converts
// positions, errors and limits to its own, so that Helm stays a room of
// its own below the loader. It also tells which files and directories
// belong to a chart (IsChartDir, IsTemplatesDir, IsTemplate), for the
// loader's walk.
package helmchart
