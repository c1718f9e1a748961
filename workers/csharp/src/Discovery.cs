// Finds BenchmarkDotNet-style benchmarks in a compiled assembly: methods carrying
// BenchmarkDotNet.Attributes.BenchmarkAttribute, their class's [Params]/[ParamsSource]/[ParamsAllValues]
// members, their [Arguments]/[ArgumentsSource] rows, and the class's setup/cleanup methods.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Reflection;
using BenchmarkDotNet.Attributes;

namespace Perflab.Worker
{
    /// <summary>One parameter axis: display strings for the host and the values the worker applies.</summary>
    public sealed class Axis
    {
        public string Name;
        public MemberInfo Member;         // a [Params*] field/property; null for the [Arguments] axis
        public int Priority;
        public List<object> Values = new List<object>();
        public List<string> Display = new List<string>();
    }

    public sealed class BenchInfo
    {
        public string Id, Name, Group, File, Description = "";
        public int Line, OpsPerInvoke = 1;
        public bool Baseline, IterationSetup;
        public Type Type;
        public MethodInfo Method;
        public List<Axis> Axes = new List<Axis>();
        public Axis Arguments;            // also in Axes (last) when the method takes arguments
        public string Unavailable;        // why a listed benchmark cannot run (its file does not compile here)
        public List<string> Categories = new List<string>();
        public Dictionary<string, object> Meta = new Dictionary<string, object>();
    }

    public static class Discovery
    {
        const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                 BindingFlags.Static | BindingFlags.FlattenHierarchy;

        /// <summary>Every benchmark of the assembly; classes that cannot be inspected raise.</summary>
        public static List<BenchInfo> Find(Assembly asm, string file, Dictionary<string, object> fileMeta,
                                           List<string> fileCategories)
        {
            var found = new List<BenchInfo>();
            Type[] types;
            try { types = asm.GetTypes(); }
            catch (ReflectionTypeLoadException e)
            {
                throw new Exception("cannot load the types of " + file + ": " +
                                    string.Join("; ", e.LoaderExceptions.Where(x => x != null).Select(x => x.Message).Distinct()));
            }
            foreach (var type in types.OrderBy(t => t.MetadataToken))
            {
                if (type.IsGenericTypeDefinition || type.IsInterface) continue;
                if (type.IsAbstract && !type.IsSealed) continue; // abstract bases are run through their subclasses
                var methods = type.GetMethods(All).Where(m => m.GetCustomAttributes(typeof(BenchmarkAttribute), true).Length > 0)
                                  .OrderBy(m => m.MetadataToken).ToList();
                if (methods.Count == 0) continue;
                var axes = ClassAxes(type);
                foreach (var m in methods) found.Add(Describe(type, m, axes, file, fileMeta, fileCategories));
            }
            // a `// perflab: {"group": …}` header names the file's group (seed snippets are all `Program`)
            object group;
            if (fileMeta.TryGetValue("group", out group) && group is string)
            {
                bool several = found.Select(b => b.Type).Distinct().Count() > 1;
                foreach (var b in found)
                {
                    b.Group = several ? group + "/" + b.Group : (string)group;
                    b.Meta.Remove("group");
                }
            }
            return found;
        }

        static string GroupName(Type t)
        {
            return t.IsNested ? GroupName(t.DeclaringType) + "." + t.Name : t.Name;
        }

        static BenchInfo Describe(Type type, MethodInfo m, List<Axis> classAxes, string file,
                                  Dictionary<string, object> fileMeta, List<string> fileCategories)
        {
            var attr = (BenchmarkAttribute)m.GetCustomAttributes(typeof(BenchmarkAttribute), true)[0];
            var b = new BenchInfo
            {
                Name = m.Name, Group = GroupName(type), File = file, Line = attr.SourceCodeLineNumber,
                Baseline = attr.Baseline, OpsPerInvoke = Math.Max(1, attr.OperationsPerInvoke),
                Description = attr.Description ?? "", Type = type, Method = m,
            };
            b.Id = System.IO.Path.GetFileNameWithoutExtension(file) + ":" + type.FullName + "." + m.Name;
            b.Axes.AddRange(classAxes);
            if (m.GetParameters().Length > 0)
            {
                b.Arguments = ArgumentsAxis(type, m);
                b.Axes.Add(b.Arguments);
            }
            foreach (var kv in fileMeta) b.Meta[kv.Key] = kv.Value;
            b.Categories.AddRange(fileCategories);
            foreach (BenchmarkCategoryAttribute c in type.GetCustomAttributes(typeof(BenchmarkCategoryAttribute), true))
                b.Categories.AddRange(c.Categories);
            foreach (BenchmarkCategoryAttribute c in m.GetCustomAttributes(typeof(BenchmarkCategoryAttribute), true))
                b.Categories.AddRange(c.Categories);
            b.Categories = b.Categories.Distinct().ToList();
            b.IterationSetup = Hooks(type, typeof(IterationSetupAttribute), m.Name).Count > 0 ||
                               Hooks(type, typeof(IterationCleanupAttribute), m.Name).Count > 0;
            var ignored = type.GetCustomAttributes(typeof(IgnoredConfigAttribute), true)
                              .Select(a => a.GetType().Name.Replace("Attribute", "")).Distinct().OrderBy(n => n).ToList();
            if (ignored.Count > 0) b.Meta["bdn_ignored"] = string.Join(", ", ignored);
            if (b.Description.Length > 0) b.Meta["bdn_description"] = b.Description;
            return b;
        }

        /// <summary>The setup/cleanup methods of `type` with attribute `kind` that apply to `method`.</summary>
        public static List<MethodInfo> Hooks(Type type, Type kind, string method)
        {
            var chain = new List<Type>();
            for (var t = type; t != null && t != typeof(object); t = t.BaseType) chain.Insert(0, t);
            var hooks = new List<MethodInfo>();
            foreach (var t in chain)  // base classes' hooks first, as BenchmarkDotNet runs them
                foreach (var h in t.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                               BindingFlags.Static | BindingFlags.DeclaredOnly).OrderBy(x => x.MetadataToken))
                    foreach (TargetedAttribute a in h.GetCustomAttributes(kind, false))
                        if (a.Match(method)) { hooks.Add(h); break; }
            return hooks;
        }

        static List<Axis> ClassAxes(Type type)
        {
            var axes = new List<Axis>();
            object instance = null;
            var members = type.GetFields(All).Cast<MemberInfo>().Concat(type.GetProperties(All))
                              .OrderBy(mi => mi.MetadataToken);
            foreach (var mi in members)
            {
                var memberType = mi is FieldInfo ? ((FieldInfo)mi).FieldType : ((PropertyInfo)mi).PropertyType;
                var p = (ParamsAttribute)mi.GetCustomAttributes(typeof(ParamsAttribute), true).FirstOrDefault();
                var ps = (ParamsSourceAttribute)mi.GetCustomAttributes(typeof(ParamsSourceAttribute), true).FirstOrDefault();
                var pa = mi.GetCustomAttributes(typeof(ParamsAllValuesAttribute), true).FirstOrDefault();
                IEnumerable values;
                if (p != null) values = p.Values;
                else if (ps != null)
                {
                    if (instance == null) instance = NewInstance(type);
                    values = Source(type, instance, ps.Name, mi.Name);
                }
                else if (pa != null) values = AllValues(memberType, mi.Name);
                else continue;
                var axis = new Axis { Name = mi.Name, Member = mi,
                                      Priority = p != null ? p.Priority : ps != null ? ps.Priority : ((ParamsAllValuesAttribute)pa).Priority };
                foreach (var v in values)
                {
                    axis.Values.Add(Convert(v, memberType));
                    axis.Display.Add(Format(v));
                }
                axes.Add(axis);
            }
            // BenchmarkDotNet's order of parameter columns: by Priority, then by name
            return axes.OrderBy(a => a.Priority).ThenBy(a => a.Name, StringComparer.Ordinal).ToList();
        }

        static Axis ArgumentsAxis(Type type, MethodInfo m)
        {
            var ps = m.GetParameters();
            var axis = new Axis { Name = string.Join(", ", ps.Select(p => p.Name)) };
            var rows = new List<object[]>();
            foreach (ArgumentsAttribute a in m.GetCustomAttributes(typeof(ArgumentsAttribute), true))
                rows.Add(a.Values);
            var src = (ArgumentsSourceAttribute)m.GetCustomAttributes(typeof(ArgumentsSourceAttribute), true).FirstOrDefault();
            if (src != null)
                foreach (var item in Source(type, NewInstance(type), src.Name, m.Name))
                    rows.Add(ps.Length > 1 && item is object[] ? (object[])item : new[] { item });
            if (rows.Count == 0)
                throw new Exception(m.Name + " takes arguments but has no [Arguments] or [ArgumentsSource]");
            foreach (var row in rows)
            {
                if (row.Length != ps.Length)
                    throw new Exception(m.Name + ": an [Arguments] row has " + row.Length + " values for " + ps.Length + " parameters");
                axis.Values.Add(row.Select((v, k) => Convert(v, ps[k].ParameterType)).ToArray());
                axis.Display.Add(string.Join(", ", row.Select(Format)));
            }
            return axis;
        }

        public static object NewInstance(Type type)
        {
            if (type.IsAbstract) return null; // a static class: only static members
            try { return Activator.CreateInstance(type, true); }
            catch (TargetInvocationException e) { throw e.InnerException ?? e; }
        }

        /// <summary>The values of a [ParamsSource]/[ArgumentsSource] member (field, property or method).</summary>
        static IEnumerable Source(Type type, object instance, string name, string forWhom)
        {
            object value;
            var f = type.GetField(name, All);
            var p = f == null ? type.GetProperty(name, All) : null;
            var m = f == null && p == null ? type.GetMethod(name, All, null, Type.EmptyTypes, null) : null;
            try
            {
                if (f != null) value = f.GetValue(f.IsStatic ? null : instance);
                else if (p != null) value = p.GetValue(p.GetGetMethod(true).IsStatic ? null : instance, null);
                else if (m != null) value = m.Invoke(m.IsStatic ? null : instance, null);
                else throw new Exception(forWhom + ": no field, property or parameterless method named '" + name + "'");
            }
            catch (TargetInvocationException e) { throw e.InnerException ?? e; }
            var items = value as IEnumerable;
            if (items == null || value is string)
                throw new Exception(forWhom + ": source '" + name + "' is not enumerable");
            return items.Cast<object>().ToList();
        }

        static IEnumerable AllValues(Type t, string forWhom)
        {
            var under = Nullable.GetUnderlyingType(t);
            var baseType = under ?? t;
            var values = new List<object>();
            if (baseType == typeof(bool)) { values.Add(false); values.Add(true); }
            else if (baseType.IsEnum && baseType.GetCustomAttributes(typeof(FlagsAttribute), false).Length == 0)
                foreach (var v in Enum.GetValues(baseType)) values.Add(v);
            else throw new Exception(forWhom + ": [ParamsAllValues] needs a bool or a non-flags enum, not " + t.Name);
            if (under != null) values.Insert(0, null);
            return values;
        }

        /// <summary>An attribute's value converted to the member's type, as BenchmarkDotNet's generated code would.</summary>
        public static object Convert(object v, Type target)
        {
            if (v == null) return null;
            if (target.IsByRef) target = target.GetElementType();
            var t = Nullable.GetUnderlyingType(target) ?? target;
            if (t.IsInstanceOfType(v)) return v;
            if (t.IsEnum) return Enum.ToObject(t, v);
            if (v is IConvertible && typeof(IConvertible).IsAssignableFrom(t))
                return System.Convert.ChangeType(v, t, CultureInfo.InvariantCulture);
            return v;
        }

        /// <summary>A value as BenchmarkDotNet's Params/Arguments columns show it.</summary>
        public static string Format(object v)
        {
            if (v == null) return "?";
            var s = v as string;
            if (s != null) return s;
            var arr = v as Array;
            if (arr != null) return v.GetType().GetElementType().Name + "[" + arr.Length + "]";
            if (v is bool) return (bool)v ? "True" : "False";
            var f = v as IFormattable;
            if (f != null) return f.ToString(null, CultureInfo.InvariantCulture);
            return v.ToString();
        }
    }
}
