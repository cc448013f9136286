package dev.stowage.cli.inspect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.lang.reflect.Method;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Turns decoded objects into JSON trees: Protobuf messages through {@code JsonFormat} when
 * protobuf-java-util is present and otherwise through their descriptors, Avro records through their
 * own JSON {@code toString()}, Thrift structs through Thrift's simple JSON protocol, and everything
 * else through Jackson (fields and getters).
 */
final class ObjectTrees {
  static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .build();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ObjectTrees() {}

  static JsonNode toTree(Object value) {
    try {
      if (value instanceof Message message) {
        return protobuf(message);
      }
      if (isInstance(value, "org.apache.avro.specific.SpecificRecord")) {
        return MAPPER.readTree(value.toString());
      }
      if (isInstance(value, "org.apache.thrift.TBase")) {
        return thrift(value);
      }
      return MAPPER.valueToTree(value);
    } catch (JsonProcessingException | ReflectiveOperationException | RuntimeException e) {
      throw new InspectException(
          "decoded a " + value.getClass().getName() + " but could not show it as JSON: " + e, e);
    }
  }

  private static boolean isInstance(Object value, String typeName) {
    try {
      return Class.forName(typeName, false, ObjectTrees.class.getClassLoader()).isInstance(value);
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static JsonNode thrift(Object value)
      throws ReflectiveOperationException, JsonProcessingException {
    ClassLoader loader = ObjectTrees.class.getClassLoader();
    Class<?> factoryType =
        Class.forName("org.apache.thrift.protocol.TProtocolFactory", false, loader);
    Object factory =
        Class.forName("org.apache.thrift.protocol.TSimpleJSONProtocol$Factory", true, loader)
            .getConstructor()
            .newInstance();
    Class<?> serializerType = Class.forName("org.apache.thrift.TSerializer", true, loader);
    Object serializer = serializerType.getConstructor(factoryType).newInstance(factory);
    Method toString =
        serializerType.getMethod(
            "toString", Class.forName("org.apache.thrift.TBase", false, loader));
    return MAPPER.readTree((String) toString.invoke(serializer, value));
  }

  private static JsonNode protobuf(Message message) throws JsonProcessingException {
    try {
      Class<?> format =
          Class.forName(
              "com.google.protobuf.util.JsonFormat", true, ObjectTrees.class.getClassLoader());
      Object printer = format.getMethod("printer").invoke(null);
      Method print =
          printer
              .getClass()
              .getMethod("print", Class.forName("com.google.protobuf.MessageOrBuilder"));
      return MAPPER.readTree((String) print.invoke(printer, message));
    } catch (ReflectiveOperationException | LinkageError e) {
      return protobufByDescriptor(message);
    }
  }

  /**
   * Proto3 JSON mapping, roughly: json names, enums by name, bytes in base64, 64-bit numbers as
   * numbers.
   */
  static ObjectNode protobufByDescriptor(Message message) {
    ObjectNode node = NODES.objectNode();
    for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      FieldDescriptor descriptor = field.getKey();
      Object value = field.getValue();
      if (descriptor.isMapField()) {
        ObjectNode map = node.putObject(descriptor.getJsonName());
        for (Object entry : (List<?>) value) {
          Message pair = (Message) entry;
          FieldDescriptor keyField = pair.getDescriptorForType().findFieldByName("key");
          FieldDescriptor valueField = pair.getDescriptorForType().findFieldByName("value");
          map.set(
              String.valueOf(pair.getField(keyField)),
              protobufValue(valueField, pair.getField(valueField)));
        }
      } else if (descriptor.isRepeated()) {
        ArrayNode array = node.putArray(descriptor.getJsonName());
        for (Object element : (List<?>) value) {
          array.add(protobufValue(descriptor, element));
        }
      } else {
        node.set(descriptor.getJsonName(), protobufValue(descriptor, value));
      }
    }
    return node;
  }

  private static JsonNode protobufValue(FieldDescriptor descriptor, Object value) {
    return switch (descriptor.getJavaType()) {
      case MESSAGE -> protobufByDescriptor((Message) value);
      case ENUM -> NODES.textNode(((EnumValueDescriptor) value).getName());
      case BYTE_STRING ->
          NODES.textNode(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
      default -> MAPPER.valueToTree(value);
    };
  }
}
