package loader

import "errors"

// Charge takes n bytes from the run's input budget for a reader outside
// the loader (internal/safeio: the configuration, baseline and policies),
// so that every byte of the run is counted once. Past the limit its error
// names --max-input-mib; a nil Budget is no limit.
func (b *Budget) Charge(n int64) error {
	if err := b.input().Take(int(n)); err != nil {
		return errors.New(b.input().OverMsg())
	}
	return nil
}
