package yamltree

import (
	"fmt"
	"strings"
)

// NotItemsMsg is the error for an object whose items is no list.
const NotItemsMsg = "items is not a list: kubectl reads an object with items as a List, and refuses it"

// ItemWithoutKind is the error for item i of a List of kind that names
// no kind or no apiVersion (and takes none from its List): kubectl's
// FlattenListVisitor stops there ("Object 'Kind' is missing"), so that it
// and the items after it are not applied.
func ItemWithoutKind(kind string, i int) string {
	return fmt.Sprintf("%s item %d has no kind or no apiVersion: kubectl stops applying the %s here (Object 'Kind' is missing)", kind, i, kind)
}

// ItemKind is the kind unstructured's decodeToList gives an item of a
// list of kind that names neither kind nor apiVersion: the list's kind
// without "List" (PodList: Pod; List: none, an error).
func ItemKind(kind string) string {
	return strings.TrimSuffix(kind, "List")
}
