package k8s

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// NewNode decodes a Node object, with an issue for each value of the
// wrong type. A Node whose every value has its type (nearly all) holds
// only what rules and the scheduling package read (nodeViewOf); one with
// a wrong-typed value anywhere is decoded whole, as the issues say.
func NewNode(obj *loader.Object) (*Node, []*DecodeIssue) {
	n := &Node{Object: obj}
	var issues []*DecodeIssue
	s := viewSchemas().node
	// A Node read lean (NodeLean) fits s, and part holds the members
	// decodeNodeView reads.
	part, ok := obj.LeanJSON(s)
	if !ok {
		if all, err := obj.JSON(); err == nil && len(jsonscan.Check(all, s, "", jsonscan.FieldPath{})) == 0 {
			part, ok = all, true
		}
	}
	if ok {
		if decodeNodeView(part, &n.Node) == nil {
			n.Node.Name = obj.Name
			return n, nil
		}
		n = &Node{Object: obj}
	}
	if err := decodeAt(obj, "", nil, &n.Node, s); err != nil {
		issues = appendIssues(issues, obj, "", err)
	}
	n.Node.Name = obj.Name
	return n, issues
}

// nodeViewOf keeps the fields of a decoded Node that rules and the
// scheduling package read: its name, labels and annotations (the legacy
// taints annotation), its taints and cordon, and its allocatable
// resources. The rest of a kubectl-shaped Node (conditions, capacity,
// images, node info, addresses, timestamps) is most of its bytes, and
// the object's JSON, which the Rego rules read, keeps it. A new reader of
// another field adds it here and in decodeNodeView (TestNodeView).
func nodeViewOf(n *v1.Node) v1.Node {
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations},
		Spec:       v1.NodeSpec{Taints: n.Spec.Taints, Unschedulable: n.Spec.Unschedulable},
		Status:     v1.NodeStatus{Allocatable: n.Status.Allocatable},
	}
}

// decodeNodeView fills n with the fields nodeViewOf keeps from all, the
// JSON of a Node whose every value fits its type (CheckJSON found none
// that does not), decoded as sigs.k8s.io/json decodes them, but the
// name, which NewNode sets; the other members are passed over unread.
func decodeNodeView(all []byte, n *v1.Node) error {
	var top, members [8]jsonscan.Field
	for _, f := range jsonscan.Fields(all, top[:0]) {
		metadata, spec, status := f.Is("metadata"), f.Is("spec"), f.Is("status")
		if !metadata && !spec && !status || string(f.Value) == "null" {
			continue // a null part leaves the field zero, as decoding does
		}
		for _, m := range jsonscan.Fields(f.Value, members[:0]) {
			if string(m.Value) == "null" {
				continue
			}
			var err error
			switch {
			case metadata && m.Is("labels"):
				n.Labels, err = stringMap(m.Value)
			case metadata && m.Is("annotations"):
				n.Annotations, err = stringMap(m.Value)
			case spec && m.Is("taints"):
				if t, ok := taintsOf(m.Value); ok {
					n.Spec.Taints = t
				} else {
					err = unmarshal(m.Value, &n.Spec.Taints)
				}
			case spec && m.Is("unschedulable"):
				switch string(m.Value) {
				case "true", "false":
					n.Spec.Unschedulable = string(m.Value) == "true"
				default:
					err = unmarshal(m.Value, &n.Spec.Unschedulable)
				}
			case status && m.Is("allocatable"):
				n.Status.Allocatable, err = resourceList(m.Value)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// resourceList decodes a JSON object of quantities as decoding it into a
// v1.ResourceList does: each value goes to Quantity.UnmarshalJSON, null
// included, and the last of a name given twice wins.
func resourceList(data []byte) (v1.ResourceList, error) {
	fields := jsonscan.Fields(data, make([]jsonscan.Field, 0, 8))
	l := make(v1.ResourceList, len(fields))
	for _, f := range fields {
		var q resource.Quantity
		if err := q.UnmarshalJSON(f.Value); err != nil {
			return nil, err
		}
		l[v1.ResourceName(jsonKey(f.Key))] = q
	}
	return l, nil
}

// stringMap decodes a JSON object of strings, as decoding it into a
// map[string]string does (a null value is "").
func stringMap(data []byte) (map[string]string, error) {
	fields := jsonscan.Fields(data, make([]jsonscan.Field, 0, 16))
	m := make(map[string]string, len(fields))
	for _, f := range fields {
		if string(f.Value) == "null" {
			m[jsonKey(f.Key)] = ""
			continue
		}
		v, err := jsonString(f.Value)
		if err != nil {
			return nil, err
		}
		m[jsonKey(f.Key)] = v
	}
	return m, nil
}

// NewRuntimeClass decodes a RuntimeClass object, with an issue for each
// value of the wrong type.
func NewRuntimeClass(obj *loader.Object) (*RuntimeClass, []*DecodeIssue) {
	rc := &RuntimeClass{Object: obj}
	var issues []*DecodeIssue
	if err := decodeAt(obj, "", nil, &rc.RuntimeClass, viewSchemas().runtimeClass); err != nil {
		issues = appendIssues(issues, obj, "", err)
	}
	return rc, issues
}

// IsNode reports whether obj is a core/v1 Node.
func IsNode(obj *loader.Object) bool { return obj.Kind == "Node" && obj.APIVersion == "v1" }

// IsRuntimeClass reports whether obj is a node.k8s.io RuntimeClass.
func IsRuntimeClass(obj *loader.Object) bool {
	return obj.Kind == "RuntimeClass" && strings.HasPrefix(obj.APIVersion, "node.k8s.io/")
}
