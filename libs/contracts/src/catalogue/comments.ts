import type {
  DescEnum,
  DescEnumValue,
  DescField,
  DescFile,
  DescMessage,
  DescMethod,
  DescOneof,
  DescService,
} from '@bufbuild/protobuf';
import type { SourceCodeInfo_Location } from '@bufbuild/protobuf/wkt';

/** Anything whose proto comment can become a description. */
export type Commented = DescMessage | DescField | DescEnum | DescEnumValue | DescOneof | DescService | DescMethod;

/**
 * Reads comments from the descriptors' source info (`buf build` keeps it by default). Returns the
 * leading comment, or else the trailing one, normalised: whitespace runs become one space,
 * paragraphs (blank comment lines) are kept. Undefined when the element has no comment.
 */
export function createCommentReader(): (desc: Commented) => string | undefined {
  const byFile = new Map<DescFile, Map<string, SourceCodeInfo_Location>>();
  const locations = (file: DescFile) => {
    let map = byFile.get(file);
    if (!map) {
      map = new Map((file.proto.sourceCodeInfo?.location ?? []).map((l) => [l.path.join('.'), l]));
      byFile.set(file, map);
    }
    return map;
  };
  return (desc) => {
    const location = locations(fileOf(desc)).get(sourcePath(desc).join('.'));
    const text = location?.leadingComments || location?.trailingComments;
    return text ? normaliseComment(text) || undefined : undefined;
  };
}

/** Whitespace runs become one space, paragraphs stay, buf's lint directives go. */
function normaliseComment(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*buf:lint:ignore\b/.test(line))
    .join('\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

function fileOf(desc: Commented): DescFile {
  switch (desc.kind) {
    case 'field':
    case 'oneof':
    case 'enum_value':
      return desc.parent.file;
    case 'rpc':
      return desc.parent.file;
    default:
      return desc.file;
  }
}

// Paths as defined by SourceCodeInfo.Location: field numbers of descriptor.proto interleaved
// with indexes (FileDescriptorProto.message_type = 4, enum_type = 5, service = 6;
// DescriptorProto.field = 2, nested_type = 3, enum_type = 4, oneof_decl = 8;
// EnumDescriptorProto.value = 2; ServiceDescriptorProto.method = 2).
function sourcePath(desc: Commented): number[] {
  switch (desc.kind) {
    case 'message':
      return desc.parent
        ? [...sourcePath(desc.parent), 3, desc.parent.proto.nestedType.indexOf(desc.proto)]
        : [4, desc.file.proto.messageType.indexOf(desc.proto)];
    case 'enum':
      return desc.parent
        ? [...sourcePath(desc.parent), 4, desc.parent.proto.enumType.indexOf(desc.proto)]
        : [5, desc.file.proto.enumType.indexOf(desc.proto)];
    case 'field':
      return [...sourcePath(desc.parent), 2, desc.parent.proto.field.indexOf(desc.proto)];
    case 'enum_value':
      return [...sourcePath(desc.parent), 2, desc.parent.proto.value.indexOf(desc.proto)];
    case 'oneof':
      return [...sourcePath(desc.parent), 8, desc.parent.proto.oneofDecl.indexOf(desc.proto)];
    case 'service':
      return [6, desc.file.proto.service.indexOf(desc.proto)];
    case 'rpc':
      return [...sourcePath(desc.parent), 2, desc.parent.proto.method.indexOf(desc.proto)];
  }
}
